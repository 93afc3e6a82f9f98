import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SERVER_DIR = fileURLToPath(new URL('../../../../apps/server/', import.meta.url));
const BUNDLE = join(SERVER_DIR, 'dist', 'main.js');
const LISTENING = 'WebUI API listening';

/** The real server (apps/server/dist/main.js) on a free loopback port, with its own data directory. */
export interface WebuiServer {
  /** http://127.0.0.1:PORT */
  baseUrl: string;
  dataDir: string;
  /** access_token of data/webui.json as it is now (a server on a shared store keeps none: see startupToken). */
  token(): string;
  /** The temporary token the server printed at its start. */
  startupToken(): string;
  webuiFile(): Record<string, unknown>;
  /** Resolves once the server printed a line containing `text` after `from` characters of its output (see outputLength). */
  waitForOutput(text: string, from?: number): Promise<void>;
  /** How much the server printed so far. */
  outputLength(): number;
  stop(): Promise<void>;
}

export interface WebuiServerOptions {
  /** Variables for the server beside the parent's, whose WEBUI_* are dropped: `WEBUI_STORE` puts the state in Redis. */
  env?: Record<string, string>;
  timeoutMs?: number;
}

/**
 * The vitest global setup builds the bundle once per run; build it here only when it is missing,
 * so that this suite never rewrites a bundle other suites are starting at the same moment.
 */
export function ensureServerBuilt(): void {
  if (!existsSync(BUNDLE)) execFileSync(process.execPath, [join(SERVER_DIR, 'build.mjs'), '--quiet'], { stdio: 'inherit' });
}

export async function startWebuiServer({ env: own = {}, timeoutMs = 15_000 }: WebuiServerOptions = {}): Promise<WebuiServer> {
  ensureServerBuilt();
  const cwd = mkdtempSync(join(tmpdir(), 'webui-client-'));
  const dataDir = join(cwd, 'data');
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WEBUI_'))), ...own };
  const child = spawn(process.execPath, [BUNDLE, '--port', '0', '--data-dir', dataDir, '--host', '127.0.0.1'], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  let output = '';
  const printed = new Set<() => void>();
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`server did not listen within ${timeoutMs} ms`)), timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${error.message}\n${output}`));
    };
    let partial = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      for (const check of printed) check();
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const address = listeningAddress(line);
        if (address) {
          clearTimeout(timer);
          resolve(Number(new URL(address).port));
        }
      }
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      for (const check of printed) check();
    });
    child.once('exit', (code) => fail(new Error(`server exited with ${code} before listening`)));
  });

  const webuiFile = () => JSON.parse(readFileSync(join(dataDir, 'webui.json'), 'utf8')) as Record<string, unknown>;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    dataDir,
    webuiFile,
    token: () => String(webuiFile()['access_token']),
    startupToken() {
      const token = /"temporary_token":"([0-9a-f]{64})"/.exec(output)?.[1];
      if (token === undefined) throw new Error(`the server printed no temporary token:\n${output}`);
      return token;
    },
    waitForOutput: (text, from = 0) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!output.includes(text, from)) return;
          printed.delete(check);
          resolve();
        };
        printed.add(check);
        check();
      }),
    outputLength: () => output.length,
    async stop() {
      await stopChild(child, exited);
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}

function listeningAddress(line: string): string | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const entry = JSON.parse(line) as { msg?: unknown; addresses?: unknown };
    if (entry.msg !== LISTENING || !Array.isArray(entry.addresses)) return undefined;
    return entry.addresses.find((address): address is string => typeof address === 'string' && address.startsWith('http://127.0.0.1:'));
  } catch {
    return undefined;
  }
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
  await exited;
  clearTimeout(timer);
}

/** What a second operator does behind the client's back: regenerate the token with a raw cookie. */
export async function rotateTokenBehindTheBack(server: WebuiServer): Promise<string> {
  const response = await fetch(`${server.baseUrl}/api/webui/auth/regenerate`, {
    method: 'POST',
    headers: { cookie: `bot_session=${encodeURIComponent(server.token())}` },
  });
  if (!response.ok) throw new Error(`regenerate answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}

/**
 * Logs in from another loopback address (Linux routes all of 127/8 to lo): the first login of an
 * address within a minute is an info line, so it reaches a log stream subscriber.
 */
export function loginFromAnotherAddress(server: WebuiServer, localAddress: string): Promise<number> {
  return verifyFrom(server, localAddress, server.token());
}

/** `count` wrong logins from one loopback address, one after the other; resolves with their statuses (the 5th is the ban's 429). */
export async function failLoginsFrom(server: Pick<WebuiServer, 'baseUrl'>, localAddress: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let attempt = 1; attempt <= count; attempt++) statuses.push(await verifyFrom(server, localAddress, `wrong-guess-${attempt}`));
  return statuses;
}

/** Whether the server takes `token` now: a login from `localAddress` that answers `valid: true`. */
export async function acceptsToken(server: Pick<WebuiServer, 'baseUrl'>, localAddress: string, token: string): Promise<boolean> {
  const { status, body } = await verifyAnswerFrom(server, localAddress, token);
  return status === 200 && (JSON.parse(body) as { valid?: unknown }).valid === true;
}

/** POST /auth/verify from a chosen source address: fetch cannot pick one, node:http can. */
async function verifyFrom(server: Pick<WebuiServer, 'baseUrl'>, localAddress: string, token: string): Promise<number> {
  return (await verifyAnswerFrom(server, localAddress, token)).status;
}

function verifyAnswerFrom(
  server: Pick<WebuiServer, 'baseUrl'>,
  localAddress: string,
  token: string,
): Promise<{ status: number; body: string }> {
  const url = new URL('/api/webui/auth/verify', server.baseUrl);
  const body = JSON.stringify({ token });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
