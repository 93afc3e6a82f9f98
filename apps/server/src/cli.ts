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
  installSignalHandlers(running);
  return 'running';
}

function installSignalHandlers(running: RunningServer): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    running.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS);
    force.unref();
    running
      .close()
      .then(() => running.logger.flush(() => process.exit(0)))
      .catch(() => process.exit(1));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
