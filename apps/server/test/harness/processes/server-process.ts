import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseToml } from 'smol-toml';
import { vi } from 'vitest';

/** The bundle global-setup.ts builds once per run; WEBUI_E2E_BUNDLE points the suite at another build. */
export const SERVER_BUNDLE = process.env['WEBUI_E2E_BUNDLE'] ?? fileURLToPath(new URL('../../../dist/main.js', import.meta.url));

/** How to run the server bundle; the same suite can then run under another runtime (Bun, Deno). */
export interface ServerLauncher {
  name: string;
  /** `env`: the variables the test sets for the server (WEBUI_*), beside the parent's. */
  command(cwd: string, args: string[], env: Record<string, string | undefined>): { cmd: string; args: string[] };
}

export const nodeLauncher: ServerLauncher = {
  name: 'node',
  command: (_cwd, args) => ({ cmd: process.execPath, args: [SERVER_BUNDLE, ...args] }),
};

const require = createRequire(import.meta.url);
const appEntry = (app: string) => fileURLToPath(new URL(`../../../../${app}/src/main.ts`, import.meta.url));

/** apps/bun from its TypeScript sources, with the bun binary the `bun` npm package ships. */
export const bunLauncher: ServerLauncher = {
  name: 'bun',
  command: (_cwd, args) => ({
    cmd: join(dirname(require.resolve('bun/package.json')), 'bin', 'bun.exe'),
    args: ['--conditions=source', appEntry('bun'), ...args],
  }),
};

const DENO_APP = fileURLToPath(new URL('../../../../deno/', import.meta.url));

/** The value after `flag` in `args`, if any. */
const flagValue = (args: string[], flag: string) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);

/**
 * The permission flags of apps/deno's start script, the one place they are written: paths starting
 * with `../` are the app's own files (resolved against apps/deno), `./` ones the deployment's data and
 * config (resolved by Deno against the server's working directory). A data directory or config file
 * placed elsewhere by flag or environment is granted as an operator would grant it (and so is reading a [webui.tls]
 * certificate and key, named by flag, variable or the config file), and so is every variable
 * of the test's `env` outside WEBUI_* (an upstream header's `${NAME}`): added to `--allow-env`.
 */
function denoPermissionFlags(cwd: string, args: string[], env: Record<string, string | undefined>): string[] {
  const manifest = JSON.parse(readFileSync(join(DENO_APP, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const dataDir = flagValue(args, '--data-dir') ?? env['WEBUI_DATA_DIR'];
  const configFile = flagValue(args, '--config') ?? env['WEBUI_CONFIG'];
  const ownVariables = Object.keys(env).filter((name) => !name.startsWith('WEBUI_') && env[name] !== undefined);
  const tls = tlsTable(resolve(cwd, configFile ?? 'config/bot_config.toml'));
  const tlsFiles = [
    flagValue(args, '--tls-cert') ?? env['WEBUI_TLS_CERT'] ?? tls['cert'],
    flagValue(args, '--tls-key') ?? env['WEBUI_TLS_KEY'] ?? tls['key'],
  ];
  const extra = {
    read: [dataDir, configFile, ...tlsFiles.map((path) => (typeof path === 'string' ? resolve(cwd, path) : undefined))],
    write: [dataDir],
    env: ownVariables,
  };
  const appPath = (path: string) => (path.startsWith('../') ? join(DENO_APP, path) : path);
  return manifest.scripts.start
    .split(' ')
    .filter((word) => /^--(allow|deny|ignore)-|^--no-prompt$|^--conditions=/.test(word))
    .map((flag) => {
      const scoped = /^--allow-(read|write|env)=(.*)$/.exec(flag);
      if (!scoped) return flag;
      const kind = scoped[1] as 'read' | 'write' | 'env';
      const paths = [...(scoped[2] as string).split(',').map(appPath), ...extra[kind].filter((path) => path !== undefined)];
      return `--allow-${kind}=${paths.join(',')}`;
    });
}

/** The config file's [webui.tls] table, or nothing when there is no file, no table or no valid TOML. */
function tlsTable(configPath: string): Record<string, unknown> {
  try {
    const webui = (parseToml(readFileSync(configPath, 'utf8')) as { webui?: { tls?: unknown } }).webui;
    return typeof webui?.tls === 'object' && webui.tls !== null ? (webui.tls as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * apps/deno from its TypeScript sources, with the deno binary the `deno` npm package ships, apps/deno/deno.json and the start script's
 * permissions.
 */
export const denoLauncher: ServerLauncher = {
  name: 'deno',
  command: (cwd, args, env) => ({
    // The package's own lookup: the binary its postinstall placed, or the one of the platform's @deno/* package.
    cmd: (require('deno/install_api.cjs') as { runInstall(): string }).runInstall(),
    args: ['run', '--quiet', `--config=${join(DENO_APP, 'deno.json')}`, ...denoPermissionFlags(cwd, args, env), appEntry('deno'), ...args],
  }),
};

/**
 * Whether the server may look at other processes, to tell a stale data-directory lock or temp file
 * from a live one. Deno may not (that needs --allow-run, which would let it start any program): it
 * keeps what it cannot judge, and the operator removes a crashed server's lock by hand.
 */
export const canJudgeOtherProcesses = (launcher: ServerLauncher = defaultLauncher) => launcher.name !== 'deno';

/**
 * Whether the server can give new handshakes a new certificate while it runs (SIGHUP, a file change). Bun's server.reload()
 * keeps the first one (oven-sh/bun#43815) and Deno.serve takes it once: they say so at startup (docs/https.md).
 */
export const canReloadCertificates = (launcher: ServerLauncher = defaultLauncher) => launcher.name === 'node';

/**
 * Whether the server caps the connections each client holds (webui.max_connections_per_client): Bun's and Deno's serve APIs
 * tell it of requests only, and they say so at startup (docs/decisions/0041-open-connections-per-client.md).
 */
export const capsConnectionsPerClient = (launcher: ServerLauncher = defaultLauncher) => launcher.name === 'node';

export const launchers = { node: nodeLauncher, bun: bunLauncher, deno: denoLauncher } as const satisfies Record<string, ServerLauncher>;

/** WEBUI_E2E_RUNTIME=bun|deno runs the whole suite against apps/bun or apps/deno instead of the Node bundle. */
export const defaultLauncher: ServerLauncher = launcherNamed(process.env['WEBUI_E2E_RUNTIME'] ?? 'node');

function launcherNamed(name: string): ServerLauncher {
  if (!Object.hasOwn(launchers, name)) throw new Error(`WEBUI_E2E_RUNTIME=${name}: expected one of ${Object.keys(launchers).join(', ')}`);
  return launchers[name as keyof typeof launchers];
}

export interface ServerOptions {
  /** Written to <cwd>/config/bot_config.toml when given. */
  config?: string;
  /** Arguments after `--port <port>`. */
  args?: string[];
  /** Passed as `--port`; 0 (the default) lets the system pick a free port; null passes no --port at all. */
  port?: number | null;
  /** Overrides on top of the parent's environment, whose WEBUI_* variables are dropped first; undefined removes one. */
  env?: Record<string, string | undefined>;
  /** An existing working directory (for a restart on the same data); a fresh temp dir otherwise. */
  cwd?: string;
  launcher?: ServerLauncher;
  /** How long to wait for the listening line, or for the exit in runServerToExit. */
  timeoutMs?: number;
}

/** A JSON log line of the server (pino): msg, level and the fields it was given. */
export type LogLine = Record<string, unknown> & { msg?: string; level?: number };

export interface ServerProcess {
  /** http://127.0.0.1:PORT (https:// with [webui.tls]) */
  baseUrl: string;
  port: number;
  /** Every address the server says it listens on. */
  addresses: string[];
  /** The data directory the server reports in its listening line. */
  dataDir: string;
  cwd: string;
  pid: number;
  /** stdout parsed line by line; lines that are not JSON are left out (see stdout()). */
  logs(): LogLine[];
  stdout(): string;
  stderr(): string;
  /** Resolves with the first log line the predicate accepts, waiting for it if need be. */
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Sends the signal and resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  kill(): void;
}

export interface ExitedProcess {
  code: number | null;
  signal: NodeJS.Signals | null;
  cwd: string;
  stdout: string;
  stderr: string;
  logs: LogLine[];
}

const LISTENING = 'WebUI API listening';
// The whole banner: one write, ended by a blank line.
const BANNER = /WebUI management API\n[\s\S]*?\n\n/;
const running = new Set<ChildProcess>();
const tempDirs = new Set<string>();

/** A fresh temporary directory, removed by cleanupServers(). */
export function makeTempDir(label = 'webui-e2e-'): string {
  const dir = mkdtempSync(join(tmpdir(), label));
  tempDirs.add(dir);
  return dir;
}

// One port finder for every test harness: the Redis package's testing entry has it.
export { freePort } from '@webui/store-redis/testing';

/** Kills every server still running and removes the temp dirs; call it from afterAll/afterEach. */
export async function cleanupServers(): Promise<void> {
  await Promise.all([...running].map((child) => killAndWait(child)));
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

/** Starts the real server and resolves once it logs that it listens; rejects if it exits first. */
export async function startServer(options: ServerOptions = {}): Promise<ServerProcess> {
  const { child, cwd, output, closed } = launch(options);
  const timeoutMs = options.timeoutMs ?? 15_000;

  let listening: LogLine;
  try {
    listening = await new Promise<LogLine>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not listen within ${timeoutMs} ms`)), timeoutMs);
      const check = () => {
        const line = output.logs().find((entry) => entry.msg === LISTENING);
        if (line) {
          clearTimeout(timer);
          resolve(line);
        }
      };
      output.onLine = check;
      // After 'close', not 'exit': the report below then holds everything the process wrote.
      void closed.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`server exited (code ${code}, signal ${signal}) before listening`));
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      check();
    });
  } catch (error) {
    await killAndWait(child);
    throw new Error(`${(error as Error).message}\n--- stdout\n${output.stdout()}\n--- stderr\n${output.stderr()}`);
  }

  // The banner is written before the listening line, but on stderr, a pipe of its own: wait until it has been read too.
  await eventually(() => BANNER.test(output.stderr()), timeoutMs, 'the startup banner on stderr');

  const addresses = (listening['addresses'] as string[] | undefined) ?? [];
  const ipv4 = addresses.find((address) => /^https?:\/\/127\.0\.0\.1:/.test(address)) ?? addresses[0];
  if (!ipv4) throw new Error(`listening line without addresses: ${JSON.stringify(listening)}`);
  const port = Number(new URL(ipv4).port);

  return {
    // https with [webui.tls].
    baseUrl: `${new URL(ipv4).protocol}//127.0.0.1:${port}`,
    port,
    addresses,
    dataDir: String(listening['dataDir']),
    cwd,
    pid: child.pid ?? -1,
    logs: output.logs,
    stdout: output.stdout,
    stderr: output.stderr,
    waitForLog: (predicate, waitMs = 5_000) => waitForLog(output, predicate, waitMs),
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return (await closed).code;
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** Runs the server expecting it to exit on its own (disabled, bad config, port in use). */
export async function runServerToExit(options: ServerOptions = {}): Promise<ExitedProcess> {
  const { child, cwd, output, closed } = launch(options);
  // A guard, not a measure: a server that waits 3 s for an unreachable Redis takes 6 s to exit, longer beside two other test files.
  const timeoutMs = options.timeoutMs ?? 25_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not exit within ${timeoutMs} ms\n--- stdout\n${output.stdout()}\n--- stderr\n${output.stderr()}`));
    }, timeoutMs);
  });
  const { code, signal } = await Promise.race([closed, timedOut]).finally(() => clearTimeout(timer));
  return { code, signal, cwd, stdout: output.stdout(), stderr: output.stderr(), logs: output.logs() };
}

interface CapturedOutput {
  logs(): LogLine[];
  stdout(): string;
  stderr(): string;
  onLine: () => void;
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

function launch(options: ServerOptions): { child: ChildProcess; cwd: string; output: CapturedOutput; closed: Promise<Exit> } {
  const cwd = options.cwd ?? makeTempDir();
  if (options.config !== undefined) {
    mkdirSync(join(cwd, 'config'), { recursive: true });
    writeFileSync(join(cwd, 'config', 'bot_config.toml'), options.config);
  }
  const port = options.port === undefined ? 0 : options.port;
  const args = [...(port === null ? [] : ['--port', String(port)]), ...(options.args ?? [])];
  const launcher = options.launcher ?? defaultLauncher;
  const { cmd, args: argv } = launcher.command(cwd, args, options.env ?? {});

  const env: Record<string, string | undefined> = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('WEBUI_')),
  );
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }

  const child = spawn(cmd, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  // 'close', not 'exit': by then every byte the process wrote has been read.
  const closed = new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });

  let stdout = '';
  let stderr = '';
  const logs: LogLine[] = [];
  let partial = '';
  const output: CapturedOutput = {
    logs: () => [...logs],
    stdout: () => stdout,
    stderr: () => stderr,
    onLine: () => undefined,
  };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    partial += chunk;
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const parsed = parseLogLine(line);
      if (parsed) logs.push(parsed);
    }
    output.onLine();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    output.onLine();
  });
  return { child, cwd, output, closed };
}

function parseLogLine(line: string): LogLine | null {
  if (!line.trim().startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(line);
    return value !== null && typeof value === 'object' ? (value as LogLine) : null;
  } catch {
    return null;
  }
}

/** Waits until check() is true; for output that arrives a little after the answer that caused it, or a server that recovers. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  // A check that throws fails at once, as before: vi.waitFor would retry it, so its error is carried out.
  let thrown: { error: unknown } | undefined;
  await vi.waitFor(
    async () => {
      let met: boolean;
      try {
        met = await check();
      } catch (error) {
        thrown = { error };
        return;
      }
      if (!met) throw new Error(`${what} not met within ${timeoutMs} ms`);
    },
    { timeout: timeoutMs, interval: 20 },
  );
  if (thrown) throw thrown.error;
}

function waitForLog(output: CapturedOutput, predicate: (line: LogLine) => boolean, timeoutMs: number): Promise<LogLine> {
  return vi.waitFor(
    () => {
      const found = output.logs().find(predicate);
      if (!found) throw new Error(`no matching log line within ${timeoutMs} ms\n${output.stdout()}`);
      return found;
    },
    { timeout: timeoutMs, interval: 20 },
  );
}

function killAndWait(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
