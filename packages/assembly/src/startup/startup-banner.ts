import type { BootstrapOutcome } from '@webui/core';
import { parseIp } from '@webui/core/net';
import { splitHost } from '@webui/http-hono';
import type { Logger } from 'pino';
import { unixSocketPath } from '../config/listen-host.js';
import { originOf } from '../http/http-policy.js';
import type { MachineAddress } from './system-ports.js';
import { warnOfWeakToken, weakTokenAdvice } from './weak-token-warning.js';

/** The temporary token goes into the startup log, as the specification asks; a configured one never does (docs/decisions/0011-temporary-token.md). */
export function logBootstrap(outcome: BootstrapOutcome, logger: Logger): void {
  if (outcome.reason === 'secret_key_changed') {
    logger.warn({}, 'webui.secret_key changed: every session is revoked and a new temporary token was made');
  }
  if (outcome.temporaryToken) {
    logger.info(
      { temporary_token: outcome.temporaryToken, reason: outcome.reason },
      'temporary access token generated; log in with it and set your own',
    );
  }
  if (outcome.weakRules.length > 0) warnOfWeakToken(logger, outcome.weakRules);
}

/**
 * Where a browser or proxy reaches the server, one entry per bound host: an origin, or `unix:/path`.
 * A wildcard bind (0.0.0.0, ::) is no address anyone can open: it is shown as allowed_hosts when set
 * (the only names the Host check then serves), else as the machine's own addresses, outside ones first.
 */
export function bannerAddresses(
  listening: ReadonlyArray<{ host: string; port: number }>,
  allowedHosts: readonly string[],
  machine: readonly MachineAddress[],
  scheme: 'http' | 'https' = 'http',
): string[] {
  const shown = new Set<string>();
  for (const { host, port } of listening) {
    if (unixSocketPath(host) !== null) shown.add(host);
    else if (!isWildcard(host)) shown.add(originOf(host, port, scheme));
    else if (allowedHosts.length > 0)
      for (const entry of allowedHosts) shown.add(`${scheme}://${splitHost(entry).port === undefined ? `${entry}:${port}` : entry}`);
    else {
      // 0.0.0.0 takes IPv4 only; :: takes both families (Node, Bun and Deno bind it dual-stack). Link-local IPv6 needs a zone no URL
      // carries.
      const usable = machine.filter((entry) => (host.includes(':') || entry.family === 4) && !/^fe[89ab]/i.test(entry.address));
      for (const entry of [...usable.filter((one) => !one.internal), ...usable.filter((one) => one.internal)])
        shown.add(originOf(entry.address, port, scheme));
      // A runtime not allowed to list interfaces still must not print the wildcard.
      if (usable.length === 0) shown.add(`${scheme}://<this machine's address>:${port}`);
    }
  }
  return [...shown];
}

/** 0.0.0.0 or :: in any spelling: every address of the machine. */
function isWildcard(host: string): boolean {
  const ip = parseIp(host);
  return ip !== null && ip.bytes.every((byte) => byte === 0);
}

/** The few human lines an operator reads at startup: where (origins, or unix:/path), which data, and (only when temporary) the token. */
export function printBanner(
  out: { write(text: string): unknown },
  addresses: readonly string[],
  data: { where: string; tokenPlace: string },
  outcome: BootstrapOutcome,
  warnings: readonly string[] = [],
  /** A self-signed certificate's SHA-256 fingerprint, for the operator to compare with the browser's. */
  fingerprint?: string,
): void {
  const origin = addresses.find((address) => unixSocketPath(address) === null);
  const lines = [
    '',
    'WebUI management API',
    `  listening   ${addresses.map((address) => (unixSocketPath(address) === null ? `${address}/api/webui` : address)).join('  ')}`,
    `  data        ${data.where}`,
  ];
  if (fingerprint !== undefined) lines.push(`  certificate self-signed, SHA-256 ${fingerprint}`);
  if (outcome.temporaryToken) {
    const others = outcome.sharedWith ?? 0;
    lines.push(
      `  token       temporary: ${outcome.temporaryToken}`,
      // Over a Unix socket only, the browser's address is the proxy's, which the server cannot know.
      origin === undefined
        ? `  login URL   <your proxy's address>/?token=${outcome.temporaryToken}`
        : `  login URL   ${origin}/?token=${outcome.temporaryToken}`,
      others > 0
        ? `              (kept: ${others} other running instance${others === 1 ? '' : 's'} on this store use${others === 1 ? 's' : ''} ` +
            `it; a start with none running makes a new one, until you set your own)`
        : '              (a new temporary token is made at every start until you set your own)',
    );
  } else {
    lines.push(`  token       configured (not shown; ${data.tokenPlace})`);
  }
  if (outcome.weakRules.length > 0) lines.push(`  warning     ${weakTokenAdvice(outcome.weakRules)}`);
  for (const warning of warnings) lines.push(`  warning     ${warning}`);
  out.write(`${lines.join('\n')}\n\n`);
}
