import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SERVER_BUNDLE } from './server-process.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const CLOCK_AHEAD = fileURLToPath(new URL('./clock-ahead.mjs', import.meta.url));

export interface CliOptions {
  input?: string;
  env?: Record<string, string>;
  /** Runs the CLI with its wall clock this far ahead (harness/clock-ahead.mjs): a fake clock instead of a wait. */
  clockAheadMs?: number;
}

/**
 * Runs the built CLI (`webui ...args`) in `cwd` without blocking this process, which may itself be
 * serving a socket the CLI talks to; `input` is its standard input. WEBUI_* of the parent are dropped.
 */
export function runWebui(cwd: string, args: string[], options: CliOptions = {}): Promise<CliRun> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WEBUI_')));
  const clock = options.clockAheadMs === undefined ? [] : ['--import', CLOCK_AHEAD];
  if (options.clockAheadMs !== undefined) env['TEST_CLOCK_AHEAD_MS'] = String(options.clockAheadMs);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...clock, SERVER_BUNDLE, ...args], {
      cwd,
      env: { ...env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdin.end(options.input ?? '');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
