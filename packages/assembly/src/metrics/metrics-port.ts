import type { Logger } from 'pino';
import type { Bound } from '../startup/listen-on-hosts.js';
import { StartupError } from '../startup/startup-error.js';
import { metricsEndpoint } from './metrics-endpoint.js';
import type { WebuiMetrics } from './webui-metrics.js';

/** Only this machine: the scrape is answered without a credential. */
const METRICS_HOST = '127.0.0.1';

/** How a runtime listens on hosts with a fetch handler (listenOnHosts over its binder, or Node's bindAll). */
export type ListenWith<Server> = (
  hosts: readonly string[],
  port: number,
  fetch: (request: Request, env?: unknown) => Response | Promise<Response>,
) => Promise<Array<Bound<Server>>>;

/**
 * `[webui] metrics_port`: GET /metrics on 127.0.0.1 through the runtime's `listen`, or nothing when the setting is unset; a port
 * in use stops the start with a StartupError naming the key and the file, as the API's own port does. Every runtime calls it
 * before it binds the API, so a refusal leaves nothing listening and nothing announced.
 */
export async function listenForMetrics<Server>(
  port: number | undefined,
  configPath: string,
  metrics: WebuiMetrics,
  listen: ListenWith<Server>,
  logger: Logger,
): Promise<Array<Bound<Server>>> {
  if (port === undefined) return [];
  const bound = await listen([METRICS_HOST], port, metricsEndpoint(metrics)).catch((error: unknown) => {
    throw metricsPortRefusal(port, configPath, error);
  });
  logger.info({ metrics: `http://${METRICS_HOST}:${port}/metrics` }, 'metrics listening (webui.metrics_port)');
  return bound;
}

/** A metrics port that cannot be bound stops the start naming the key and the file, not the API's own port. */
function metricsPortRefusal(port: number, configPath: string, error: unknown): unknown {
  if (!(error instanceof StartupError)) return error;
  return new StartupError(
    `webui.metrics_port ${port} in ${configPath}: cannot listen on ${METRICS_HOST}:${port} (${error.message.replace(/ \(set .*\)$/, '')}); choose another port`,
  );
}
