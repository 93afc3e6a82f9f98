import { StartupError, stopOnSignals, type ExtensionsSource, type LoadedSettings } from '../../index.js';
import { createContainer, nodeParts } from '../container.js';
import { serve, type RunningServer } from '../serve.js';
import type { CliIo } from './cli-io.js';
import { EXIT_OK, EXIT_REFUSED } from './exit-codes.js';

/** `webui serve`: runs until SIGTERM/SIGINT; resolves 'running' once it listens. */
export async function serveCommand(loaded: LoadedSettings, io: CliIo, extensions?: ExtensionsSource): Promise<number | 'running'> {
  if (!loaded.settings.enabled) {
    io.stdout(`webui: webui.enabled is false in ${loaded.configPath}; the WebUI API is not started.\n`);
    return EXIT_OK;
  }
  // Before serve(): it announces readiness, and a supervisor may signal at once; without a handler that kills the process.
  const hand = stopOnSignals({
    onSignal: (signal, handler) => process.on(signal, handler),
    exit: (code) => process.exit(code),
    unrefTimer: (timer) => timer.unref(),
  });
  let running: RunningServer;
  try {
    running = await serve(nodeParts(createContainer(loaded)), extensions ? { extensions } : {});
  } catch (error) {
    if (error instanceof StartupError) {
      io.stderr(`webui: cannot start: ${error.message}\n`);
      return EXIT_REFUSED;
    }
    throw error;
  }
  hand(running);
  return 'running';
}
