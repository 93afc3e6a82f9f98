import { checkTlsPair, describeSettings, storeIsShared, weakTokenAdvice, type LoadedSettings } from '../../index.js';
import { tokenWeakness } from '@webui/core';
import { readRecordFile } from '@webui/store-json';
import type { CliIo } from './cli-io.js';
import { EXIT_OK, EXIT_REFUSED } from './exit-codes.js';

/**
 * `webui config check`: the effective settings, then the token file as it is (read only: nothing is made
 * or moved), since a weak token written by hand is accepted at startup and only warned about.
 */
export async function configCheck(loaded: LoadedSettings, io: CliIo): Promise<number> {
  const tls = loaded.settings.tls ? await checkTlsPair(loaded.settings.tls, Date.now()) : { lines: [] };
  io.stdout(`${[...describeSettings(loaded), ...tls.lines].join('\n')}\n`);
  // A certificate that would stop the start makes the check fail as the start would.
  if (tls.error !== undefined) {
    io.stderr(`webui config check: ${tls.error}\n`);
    return EXIT_REFUSED;
  }
  io.stdout('configuration is valid\n');
  // A shared store is checked by the server that opens it: a check must not connect to it or import into it.
  if (storeIsShared(loaded.settings)) return EXIT_OK;
  const file = await readRecordFile(loaded.dataDir);
  if (file.kind === 'missing') return EXIT_OK;
  if (file.kind === 'invalid') {
    io.stderr(
      `webui config check: ${file.path} is not valid (${file.reason}); the next start moves it aside and makes a temporary token\n`,
    );
    return EXIT_REFUSED;
  }
  const rules = tokenWeakness(file.record.accessToken);
  if (rules.length === 0) return EXIT_OK;
  io.stderr(`webui config check: ${file.path}: ${weakTokenAdvice(rules)}\n`);
  return EXIT_REFUSED;
}
