import type { Logger } from 'pino';

const SHUTDOWN_GRACE_MS = 5_000;

/** What a running server offers its process: its log and a clean close. */
export interface StoppableServer {
  logger: Logger;
  close(): Promise<void>;
}

/** The few process facilities shutdown needs, so every runtime stops the same way. */
export interface ProcessControl {
  onSignal(signal: 'SIGTERM' | 'SIGINT' | 'SIGHUP', handler: () => void): void;
  exit(code: number): void;
  /** Lets a timer run without keeping the process alive (timers are objects on Node and Bun, numbers on Deno). */
  unrefTimer(timer: ReturnType<typeof setTimeout>): void;
}

/**
 * Handles SIGTERM/SIGINT from now on: close, flush the log, exit 0 (1 when the close fails or takes
 * over 5 s). Install it before the server announces itself, since a supervisor may signal at once;
 * a signal during startup stops the server as soon as the returned function hands it over.
 */
export function stopOnSignals(control: ProcessControl): (running: StoppableServer) => void {
  let running: StoppableServer | undefined;
  let pending: 'SIGTERM' | 'SIGINT' | undefined;
  let stopping = false;
  const stop = (signal: 'SIGTERM' | 'SIGINT') => {
    const server = running;
    if (!server) {
      pending ??= signal;
      return;
    }
    if (stopping) return;
    stopping = true;
    server.logger.info({ signal }, 'shutting down');
    control.unrefTimer(setTimeout(() => control.exit(1), SHUTDOWN_GRACE_MS));
    server.close().then(
      () => server.logger.flush(() => control.exit(0)),
      () => control.exit(1),
    );
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) control.onSignal(signal, () => stop(signal));
  return (server) => {
    running = server;
    if (pending) stop(pending);
  };
}
