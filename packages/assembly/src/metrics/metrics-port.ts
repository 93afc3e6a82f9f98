import type { Logger } from 'pino';
import { listenOnHosts, type Bound, type HostBinder } from '../listen-on-hosts.js';
import { StartupError } from '../startup-error.js';
import { metricsEndpoint } from './metrics-endpoint.js';
import type { WebuiMetrics } from './webui-metrics.js';

/** Only this machine: the scrape is answered without a credential. */
const METRICS_HOST = '127.0.0.1';

/**
 * `[webui] metrics_port`: binds GET /metrics on 127.0.0.1 with the runtime's binder (`fetch` the endpoint), or nothing when the
 * setting is unset; a port in use stops the start with a StartupError naming it, as the API's own port does.
 */
export async function listenForMetrics<Server>(
  port: number | undefined,
  configPath: string,
  metrics: WebuiMetrics,
  bind: (host: string, port: number, fetch: (request: Request) => Promise<Response>) => Promise<{ server: Server; port: number }>,
  binder: Omit<HostBinder<Server>, 'bind'>,
  logger: Logger,
): Promise<Array<Bound<Server>>> {
  if (port === undefined) return [];
  const endpoint = metricsEndpoint(metrics);
  const bound = await listenOnHosts(
    [METRICS_HOST],
    port,
    { ...binder, bind: (host, chosen) => bind(host, chosen, endpoint) },
    logger,
  ).catch((error: unknown) => {
    throw metricsPortRefusal(port, configPath, error);
  });
  logger.info({ metrics: `http://${METRICS_HOST}:${port}/metrics` }, 'metrics listening (webui.metrics_port)');
  return bound;
}

/** A metrics port that cannot be bound stops the start naming the key and the file, not the API's own port. */
export function metricsPortRefusal(port: number, configPath: string, error: unknown): unknown {
  if (!(error instanceof StartupError)) return error;
  return new StartupError(
    `webui.metrics_port ${port} in ${configPath}: cannot listen on ${METRICS_HOST}:${port} (${error.message.replace(/ \(set .*\)$/, '')}); choose another port`,
  );
}
