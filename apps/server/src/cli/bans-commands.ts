import type { LoadedSettings } from '@webui/assembly';
import { InstanceLock } from '@webui/store-json';
import type { BanEntryJson } from '@webui/http-hono';
import type * as v from 'valibot';
import { askControlSocket, CONTROL_ANSWER_TIMEOUT_MS } from '../control/control-client.js';
import { BansLiftAnswer, BansListAnswer, type ControlRequest } from '../control/control-protocol.js';
import { controlSocketPlace, type ControlSocketPlace } from '../control/control-socket-place.js';
import { banTable, liftedLine } from './ban-table.js';
import type { CliIo } from './cli-io.js';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from './exit-codes.js';

/** `webui bans list [--json]` and `webui bans lift <address|cidr|all>`, over the running server's control socket. */
export async function bansCommand(args: string[], loaded: LoadedSettings, io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  switch (action) {
    case 'list': {
      const unknown = rest.find((arg) => arg !== '--json');
      if (unknown !== undefined) return usage(io, `webui bans list: unknown option or argument ${JSON.stringify(unknown)}`);
      return listBans(loaded, io, { json: rest.includes('--json') });
    }
    case 'lift': {
      // No address, CIDR or key starts with a dash: such an argument is an option, and lift has none.
      const option = rest.find((arg) => arg.startsWith('-'));
      if (option !== undefined) return usage(io, `webui bans lift: unknown option ${JSON.stringify(option)}`);
      if (rest.length !== 1) return usage(io, 'webui bans lift: expected one target: an address, a CIDR (192.168.1.0/24) or all');
      return liftBans(loaded, io, rest[0] as string);
    }
    default:
      return usage(io, `webui bans: expected list or lift${action ? `, got ${JSON.stringify(action)}` : ''}`);
  }
}

async function listBans(loaded: LoadedSettings, io: CliIo, { json }: { json: boolean }): Promise<number> {
  const reached = await askServer(loaded.dataDir, { op: 'bans.list' }, BansListAnswer);
  if (reached.kind === 'unreachable') {
    io.stderr(`webui bans list: ${reached.message}\n`);
    return EXIT_REFUSED;
  }
  let bans: BanEntryJson[];
  if (reached.kind === 'stopped') {
    // Not an error: with no server nothing is in force, and an empty list says exactly that.
    io.stderr(`no server is running on ${loaded.dataDir}, so no bans are in force: bans and failure counts live in the running server's memory and ended when it stopped\n`);
    bans = [];
  } else if (reached.answer.ok) {
    bans = reached.answer.bans;
  } else {
    io.stderr(`webui bans list: ${reached.answer.detail}\n`);
    return EXIT_REFUSED;
  }
  io.stdout(json ? `${JSON.stringify({ bans })}\n` : banTable(bans, Date.now()));
  return EXIT_OK;
}

async function liftBans(loaded: LoadedSettings, io: CliIo, target: string): Promise<number> {
  const reached = await askServer(loaded.dataDir, { op: 'bans.lift', target }, BansLiftAnswer);
  if (reached.kind === 'unreachable') {
    io.stderr(`webui bans lift: ${reached.message}\n`);
    return EXIT_REFUSED;
  }
  if (reached.kind === 'stopped') {
    io.stderr(`nothing lifted: no server is running on ${loaded.dataDir}, and bans live only in a running server's memory\n`);
    return EXIT_REFUSED;
  }
  const { answer } = reached;
  if (!answer.ok) {
    io.stderr(`webui bans lift: ${answer.detail}\n`);
    return EXIT_REFUSED;
  }
  if (answer.lifted.length === 0) {
    const scope = target.trim().toLowerCase() === 'all' ? 'no address' : `no address under ${target}`;
    io.stderr(`nothing lifted: ${scope} has failures or a ban\n`);
    return EXIT_REFUSED;
  }
  const now = Date.now();
  io.stdout(answer.lifted.map((entry) => liftedLine(entry, now)).join(''));
  return EXIT_OK;
}

type Reached<Answer> = { kind: 'answered'; answer: Answer } | { kind: 'stopped' } | { kind: 'unreachable'; message: string };

/** Asks the server of `dataDir`; when its socket is not there, the instance lock tells a stopped server from one that cannot be reached. */
async function askServer<TSchema extends v.GenericSchema>(dataDir: string, request: ControlRequest, answerSchema: TSchema): Promise<Reached<v.InferOutput<TSchema>>> {
  const place = controlSocketPlace(dataDir);
  if (place.kind === 'usable') {
    const exchange = await askControlSocket(place.path, request, answerSchema);
    if (exchange.kind === 'answered') return exchange;
    if (exchange.kind === 'silent') return { kind: 'unreachable', message: `the server does not answer on ${place.path} within ${CONTROL_ANSWER_TIMEOUT_MS / 1000} s` };
    if (exchange.kind === 'failed') return { kind: 'unreachable', message: exchange.message };
  }
  const pid = InstanceLock.holder(dataDir);
  if (pid === null) return { kind: 'stopped' };
  return { kind: 'unreachable', message: whyUnreachable(place, pid) };
}

function whyUnreachable(place: ControlSocketPlace, pid: number): string {
  const elsewhere = 'use GET or DELETE /api/webui/security/bans instead';
  switch (place.kind) {
    case 'unsupported':
      return `the server (pid ${pid}) runs, but this platform has no control socket for \`webui bans\`; ${elsewhere}`;
    case 'too-long':
      return `the server (pid ${pid}) runs without a control socket: ${place.path} is longer than ${place.maxBytes} bytes; use a shorter data directory, or ${elsewhere}`;
    case 'usable':
      return `the server (pid ${pid}) holds the data directory but does not listen on ${place.path} (starting, or its log says why); try again, or ${elsewhere}`;
  }
}

function usage(io: CliIo, message: string): number {
  io.stderr(`${message}\n`);
  return EXIT_USAGE;
}
