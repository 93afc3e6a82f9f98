import { metricsEndpoint, metricsPortRefusal, type WebuiMetrics } from '@webui/assembly';
import type { Logger } from 'pino';
import { bindAll, type BoundListener } from './listeners.js';

/** `[webui] metrics_port` on Node: GET /metrics on 127.0.0.1 without a credential, or nothing when the setting is unset. */
export async function openMetricsPort(
  port: number | undefined,
  configPath: string,
  metrics: WebuiMetrics | undefined,
  logger: Logger,
): Promise<BoundListener[]> {
  if (port === undefined || metrics === undefined) return [];
  const listeners = await bindAll(['127.0.0.1'], port, metricsEndpoint(metrics), logger).catch((error: unknown) => {
    throw metricsPortRefusal(port, configPath, error);
  });
  logger.info({ metrics: `http://127.0.0.1:${port}/metrics` }, 'metrics listening (webui.metrics_port)');
  return listeners;
}
