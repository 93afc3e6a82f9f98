import { spawn } from 'node:child_process';
import { SERVER_BUNDLE } from './server-process.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built CLI (`webui ...args`) in `cwd` without blocking this process, which may itself be
 * serving a socket the CLI talks to; `input` is its standard input. WEBUI_* of the parent are dropped.
 */
export function runWebui(cwd: string, args: string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WEBUI_')));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVER_BUNDLE, ...args], { cwd, env: { ...env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
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
