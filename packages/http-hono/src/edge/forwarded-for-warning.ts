import { OncePerWindow } from '@webui/core';
import type { AppLogger } from '../app-env.js';

// One warning per proxy per minute: a misconfigured proxy sends every request without the header.
const WARNING_INTERVAL_MS = 60_000;
const MAX_WARNED_PROXIES = 1_000;

/**
 * Warns, at most once a minute per proxy, that a trusted proxy sent no usable X-Forwarded-For: what it
 * forwards is counted against its own address, so a ban there bans everyone behind it until it is fixed.
 */
export function forwardedForWarning(logger: AppLogger, now: () => number): (proxyIp: string) => void {
  const warnings = new OncePerWindow<string>(WARNING_INTERVAL_MS, MAX_WARNED_PROXIES);
  return (proxyIp) => {
    if (warnings.due(proxyIp, now()) === null) return;
    logger.warn(
      { ip: proxyIp },
      "a request came from a trusted proxy without a usable X-Forwarded-For; it is counted against the proxy's own address, so a ban " +
        'there bans everyone behind it (make the proxy send X-Forwarded-For)',
    );
  };
}
