import type { LoadedSettings } from '@webui/assembly';
import type { CliIo } from './cli-io.js';
import { openDataDir } from './data-dir-services.js';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from './exit-codes.js';

export async function setupCommand(args: string[], loaded: LoadedSettings, io: CliIo): Promise<number> {
  const [action, ...extra] = args;
  if ((action !== 'status' && action !== 'complete' && action !== 'reset') || extra.length > 0) {
    io.stderr(`webui setup: expected status, complete or reset${action ? `, got ${JSON.stringify([action, ...extra].join(' '))}` : ''}\n`);
    return EXIT_USAGE;
  }
  const services = await openDataDir(loaded, { createIfMissing: false });
  if (!services) {
    io.stderr('no data yet: start the server once first\n');
    return EXIT_REFUSED;
  }
  try {
    const isFirstSetup =
      action === 'complete' ? await services.setup.complete() : action === 'reset' ? await services.setup.reset() : await services.setup.isFirstSetup();
    const { tokenSource } = await services.tokens.status();
    io.stdout(`first setup: ${isFirstSetup ? 'open' : 'completed'}\ntoken source: ${tokenSource}\n`);
    return EXIT_OK;
  } finally {
    await services.close();
  }
}
