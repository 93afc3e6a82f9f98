import { RECORD_FILE_NAME } from '@webui/store-json';
import type { BootstrapOutcome } from '@webui/core';
import { join } from 'node:path';
import type { LoadedSettings } from './config/loaded-settings.js';
import { originOf } from './http-policy.js';
import type { BoundListener } from './listeners.js';

/** The few human lines an operator reads at startup: where, which data, and (only when temporary) the token. */
export function printBanner(out: NodeJS.WritableStream, loaded: LoadedSettings, listeners: BoundListener[], outcome: BootstrapOutcome): void {
  const first = listeners[0] as BoundListener;
  const base = originOf(first.host, first.port);
  const lines = [
    '',
    'WebUI management API',
    `  listening   ${listeners.map((l) => `${originOf(l.host, l.port)}/api/webui`).join('  ')}`,
    `  data        ${join(loaded.dataDir, RECORD_FILE_NAME)}`,
  ];
  if (outcome.temporaryToken) {
    lines.push(`  token       temporary: ${outcome.temporaryToken}`);
    lines.push(`  login URL   ${base}/?token=${outcome.temporaryToken}`);
    lines.push('              (a new temporary token is made at every start until you set your own)');
  } else {
    lines.push('  token       configured (not shown; it is the access_token field of the data file)');
  }
  out.write(`${lines.join('\n')}\n\n`);
}
