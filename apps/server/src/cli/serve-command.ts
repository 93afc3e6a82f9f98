import type { LoadedSettings } from '../config/loaded-settings.js';
import { serve, type RunningServer } from '../serve.js';
import { StartupError } from '../startup-error.js';
import type { CliIo } from './cli-io.js';
import { EXIT_OK, EXIT_REFUSED } from './exit-codes.js';

const SHUTDOWN_GRACE_MS = 5_000;

/** `webui serve`: runs until SIGTERM/SIGINT; resolves 'running' once it listens. */
export async function serveCommand(loaded: LoadedSettings, io: CliIo): Promise<number | 'running'> {
  if (!loaded.settings.enabled) {
    io.stdout(`webui: webui.enabled is false in ${loaded.configPath}; the WebUI API is not started.\n`);
    return EXIT_OK;
  }
  // Before serve(): it announces readiness, and a supervisor may signal at once; without a handler that kills the process.
  const attach = installSignalHandlers();
  let running: RunningServer;
  try {
    running = await serve(loaded);
  } catch (error) {
    if (error instanceof StartupError) {
      io.stderr(`webui: cannot start: ${error.message}\n`);
      return EXIT_REFUSED;
    }
    throw error;
  }
  attach(running);
  return 'running';
}

/** Handles SIGTERM/SIGINT from now on; a signal that arrives during startup stops the server once it is up. */
function installSignalHandlers(): (running: RunningServer) => void {
  let running: RunningServer | undefined;
  let pending: NodeJS.Signals | undefined;
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    const server = running;
    if (!server) {
      pending ??= signal;
      return;
    }
    if (stopping) return;
    stopping = true;
    server.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS);
    force.unref();
    server
      .close()
      .then(() => server.logger.flush(() => process.exit(0)))
      .catch(() => process.exit(1));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return (server) => {
    running = server;
    if (pending) stop(pending);
  };
}
