import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const SCRIPT = fileURLToPath(new URL('./client-script.ts', import.meta.url));

export type Runtime = 'node' | 'bun' | 'deno';

/** The binaries the workspace's `bun` and `deno` npm packages ship, found as apps/server's test harness finds them. */
const bunBinary = () => join(dirname(require.resolve('bun/package.json')), 'bin', 'bun.exe');
const denoBinary = () => (require('deno/install_api.cjs') as { runInstall(): string }).runInstall();

/** How each runtime runs the bundle; Deno may reach the loopback only, and Node 20 gets the WebSocket the others have. */
function command(runtime: Runtime, bundle: string): [string, string[]] {
  switch (runtime) {
    case 'node':
      return [process.execPath, ['--experimental-websocket', '--no-warnings', bundle]];
    case 'bun':
      return [bunBinary(), [bundle]];
    case 'deno':
      return [denoBinary(), ['run', '--quiet', '--no-prompt', '--allow-net=127.0.0.1', bundle]];
  }
}

/** Bundles client-script.ts and the client's sources (hono/client included) into one ESM file every runtime runs as is. */
export function bundleClientScript(outdir: string): string {
  const outfile = join(outdir, 'client-script.mjs');
  execFileSync(bunBinary(), ['build', SCRIPT, '--target=node', '--format=esm', `--outfile=${outfile}`], { stdio: 'pipe' });
  return outfile;
}

/** client-script.ts running in a runtime: the steps it prints, and the test's answers to them. */
export interface ClientProcess {
  /** Resolves with what the script saw at its next step, which must be `at`; rejects with its output otherwise. */
  reached(at: string): Promise<Record<string, unknown>>;
  /** Lets the script go on from the step it reached. */
  go(): void;
  /** Resolves with its exit code once it has ended by itself. */
  exited(): Promise<number | null>;
  kill(): void;
}

export function startClientScript(runtime: Runtime, bundle: string, args: string[]): ClientProcess {
  const [cmd, runtimeArgs] = command(runtime, bundle);
  const child = spawn(cmd, [...runtimeArgs, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const steps: Array<Record<string, unknown>> = [];
  const waiting: Array<() => void> = [];
  let stdout = '';
  let stderr = '';
  let ended = false;
  const exit = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      ended = true;
      for (const wake of waiting.splice(0)) wake();
      resolve(code);
    }),
  );
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let partial = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) steps.push(JSON.parse(line) as Record<string, unknown>);
    for (const wake of waiting.splice(0)) wake();
  });
  const output = () => `--- ${runtime} stdout\n${stdout}--- ${runtime} stderr\n${stderr}`;

  return {
    async reached(at) {
      while (steps.length === 0 && !ended) await new Promise<void>((wake) => waiting.push(wake));
      const step = steps.shift();
      // A test that hangs on a fault the script never reached shows nothing else: DEBUG_CLIENT_SCRIPT=1 prints each step.
      if (process.env['DEBUG_CLIENT_SCRIPT'] === '1') console.error(runtime, JSON.stringify(step));
      if (step?.['at'] !== at) throw new Error(`expected the script at "${at}", got ${JSON.stringify(step)}\n${output()}`);
      const { at: _at, ...seen } = step;
      return seen;
    },
    go: () => child.stdin.write('go\n'),
    exited() {
      child.stdin.end();
      return exit;
    },
    kill: () => child.kill('SIGKILL'),
  };
}
