import type { ExtensionsSource } from '../webui-extensions.js';
import { runCli } from './cli.js';
import { processIo } from './cli/cli-io.js';
import { keepHeapTight } from './runtime/tight-heap.js';

/**
 * The WebUI API on Node as `npm start` runs it, with a bot's route groups and channel domains: the production server
 * (the /auth/check fast path, Unix sockets, the control socket, the metrics port) and the `webui` commands, read from
 * the process's arguments (`node bot.js token show`). Resolves once the server listens, or once a command ended with
 * its exit code set on the process.
 */
export async function serveWebui(extensions?: ExtensionsSource): Promise<void> {
  keepHeapTight();
  const result = await runCli(process.argv.slice(2), process.env, process.cwd(), processIo, extensions).catch((error: unknown) => {
    process.stderr.write(`webui: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  });
  if (result !== 'running') process.exitCode = result;
}
