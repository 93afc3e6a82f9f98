import { ConfigError } from './config/config-error.js';
import { loadSettings } from './config/load-settings.js';
import { serve, type RunningServer } from './serve.js';
import { StartupError } from './startup-error.js';

const SHUTDOWN_GRACE_MS = 5_000;

/** `webui [serve] [--config PATH] [--data-dir PATH] [--host LIST] [--port N]`; returns the exit code. */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number | 'running'> {
  let loaded;
  try {
    loaded = loadSettings({ argv, env, cwd });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`webui: configuration error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  if (!loaded.settings.enabled) {
    process.stdout.write(`webui: webui.enabled is false in ${loaded.configPath}; the WebUI API is not started.\n`);
    return 0;
  }
  // Before serve(): it announces readiness, and a supervisor may signal at once; without a handler that kills the process.
  const attach = installSignalHandlers();
  let running: RunningServer;
  try {
    running = await serve(loaded);
  } catch (error) {
    if (error instanceof StartupError) {
      process.stderr.write(`webui: cannot start: ${(error as Error).message}\n`);
      return 1;
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
