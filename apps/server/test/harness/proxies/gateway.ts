import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HttpClient } from '../clients/http-client.js';
import { startServer, type ServerOptions, type ServerProcess } from '../processes/server-process.js';
import { readWebuiFile } from '../webui-file.js';

/** The stand-in upstream's own token: the server reads it from this variable, never from its config file. */
export const STAND_IN_TOKEN = 'Upstream-Token_2026x';
export const STAND_IN_TOKEN_VARIABLE = 'STAND_IN_TOKEN';

export interface GatewayOptions {
  /** `webui.upstream.url`: the stand-in's url, `unix:<path>`, or a closed port's. */
  url: string;
  /** `webui.upstream.timeout` in seconds. */
  timeout?: number;
  /** `webui.upstream.paths`. */
  paths?: string[];
  /** `webui.upstream.public_paths`. */
  publicPaths?: string[];
  /** More `[webui]` keys, as TOML lines. */
  webui?: string;
  /** Passed to startServer (env is merged with the token's variable). */
  server?: Omit<ServerOptions, 'config'>;
}

/** The config file of a server in front of the stand-in: its cookie in a header read from the environment. */
export function gatewayConfig(options: GatewayOptions): string {
  const lines = ['[webui]', options.webui ?? '', '', '[webui.upstream]', `url = ${JSON.stringify(options.url)}`];
  if (options.timeout !== undefined) lines.push(`timeout = ${options.timeout}`);
  if (options.paths !== undefined) lines.push(`paths = ${JSON.stringify(options.paths)}`);
  if (options.publicPaths !== undefined) lines.push(`public_paths = ${JSON.stringify(options.publicPaths)}`);
  lines.push(`headers = { Cookie = "maibot_session=\${${STAND_IN_TOKEN_VARIABLE}}" }`, '');
  return lines.join('\n');
}

export interface Gateway {
  server: ServerProcess;
  /** The server's access token. */
  token: string;
  /** A client logged in with the access token (its bot_session cookie in the jar). */
  operator: HttpClient;
}

/** The real server in front of the stand-in, and an operator logged in to it from `operatorAddress`. */
export async function startGateway(options: GatewayOptions, operatorAddress = '127.0.0.1'): Promise<Gateway> {
  const server = await startServer({
    ...options.server,
    config: gatewayConfig(options),
    env: { ...options.server?.env, [STAND_IN_TOKEN_VARIABLE]: STAND_IN_TOKEN },
  });
  const token = readWebuiFile(server.dataDir).access_token;
  const operator = new HttpClient(server.baseUrl, { localAddress: operatorAddress, prefix: '' });
  const login = await operator.post('/api/webui/auth/verify', { body: { token } });
  if (login.json?.['valid'] !== true) throw new Error(`login refused: ${login.text}`);
  return { server, token, operator };
}

export type AuditLine = Record<string, unknown> & { event: string };

/** Every line of `<data dir>/audit.log`. */
export function auditLines(server: ServerProcess): AuditLine[] {
  return readFileSync(join(server.dataDir, 'audit.log'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditLine);
}

/** The secret the server signs X-WebUI-Assertion with. */
export function assertionSecret(server: ServerProcess): Uint8Array {
  return new Uint8Array(readFileSync(join(server.dataDir, 'upstream-assertion.key')));
}

/** `/proc/<pid>/status`'s field (`VmRSS`, `VmHWM`) in bytes, or undefined where there is no /proc. */
export function processMemory(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : undefined;
}
