import type { BootstrapOutcome } from '@webui/core';
import type { Logger } from 'pino';

/** The temporary token goes into the startup log, as the specification asks; a configured one never does (D11). */
export function logBootstrap(outcome: BootstrapOutcome, logger: Logger): void {
  if (outcome.reason === 'secret_key_changed') {
    logger.warn({}, 'webui.secret_key changed: every session is revoked and a new temporary token was made');
  }
  if (outcome.temporaryToken) {
    logger.info({ temporary_token: outcome.temporaryToken, reason: outcome.reason }, 'temporary access token generated; log in with it and set your own');
  }
}

/** The few human lines an operator reads at startup: where, which data, and (only when temporary) the token. */
export function printBanner(out: { write(text: string): unknown }, origins: readonly string[], data: { where: string; tokenPlace: string }, outcome: BootstrapOutcome, warnings: readonly string[] = []): void {
  const lines = ['', 'WebUI management API', `  listening   ${origins.map((origin) => `${origin}/api/webui`).join('  ')}`, `  data        ${data.where}`];
  if (outcome.temporaryToken) {
    const others = outcome.sharedWith ?? 0;
    lines.push(
      `  token       temporary: ${outcome.temporaryToken}`,
      `  login URL   ${origins[0]}/?token=${outcome.temporaryToken}`,
      others > 0
        ? `              (kept: ${others} other running instance${others === 1 ? '' : 's'} on this store use${others === 1 ? 's' : ''} it; a start with none running makes a new one, until you set your own)`
        : '              (a new temporary token is made at every start until you set your own)',
    );
  } else {
    lines.push(`  token       configured (not shown; ${data.tokenPlace})`);
  }
  for (const warning of warnings) lines.push(`  warning     ${warning}`);
  out.write(`${lines.join('\n')}\n\n`);
}
