import type { LoadedSettings } from '../../index.js';
import { runAdminRequest } from './admin-request.js';
import type { CliIo } from './cli-io.js';
import { openDataDir } from './data-dir-services.js';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from './exit-codes.js';

const NO_RECORD = 'no token yet: start the server once, or set one with `webui token set`\n';

/**
 * `webui token show|set|regenerate`: show reads the configured store directly (data/webui.json, or the record in
 * Redis), server or not; set and regenerate go through the running server when one runs.
 */
export async function tokenCommand(args: string[], loaded: LoadedSettings, io: CliIo): Promise<number> {
  const [action, ...flags] = args;
  switch (action) {
    case 'show':
      return showToken(flags, loaded, io);
    case 'set':
      return setToken(loaded, io);
    case 'regenerate':
      return regenerateToken(loaded, io);
    default:
      io.stderr(`webui token: expected show, set or regenerate${action ? `, got ${JSON.stringify(action)}` : ''}\n`);
      return EXIT_USAGE;
  }
}

async function showToken(flags: string[], loaded: LoadedSettings, io: CliIo): Promise<number> {
  const unknown = flags.filter((flag) => flag !== '--reveal');
  if (unknown.length > 0) {
    io.stderr(`webui token show: unknown option ${unknown[0]}\n`);
    return EXIT_USAGE;
  }
  const services = await openDataDir(loaded, { createIfMissing: false });
  if (!services) {
    io.stderr(NO_RECORD);
    return EXIT_REFUSED;
  }
  try {
    const record = await services.store.readRecord();
    const status = await services.tokens.status();
    if (status.tokenSource === 'configured' && !flags.includes('--reveal')) {
      io.stderr('the token is configured and is not printed; pass --reveal to print it\n');
      return EXIT_REFUSED;
    }
    io.stdout(`${record?.accessToken}\n`);
    io.stderr(`token source: ${status.tokenSource}\n`);
    return EXIT_OK;
  } finally {
    await services.close();
  }
}

async function setToken(loaded: LoadedSettings, io: CliIo): Promise<number> {
  // One trailing newline is what `echo` and editors add; anything else is part of the token.
  const token = (await io.readStdin()).replace(/\r?\n$/, '');
  const outcome = await runAdminRequest(loaded, { op: 'token.set', token }, io);
  // Neither message can hold the token: the server's refusals name rules, never the value.
  if (outcome.kind === 'unreachable') return refused(io, 'token set', outcome.message);
  if (!outcome.answer.ok) return refused(io, 'token set', outcome.answer.detail);
  io.stderr('token updated; sessions under the old token have ended\n');
  return EXIT_OK;
}

async function regenerateToken(loaded: LoadedSettings, io: CliIo): Promise<number> {
  const outcome = await runAdminRequest(loaded, { op: 'token.regenerate' }, io);
  if (outcome.kind === 'unreachable') return refused(io, 'token regenerate', outcome.message);
  if (!outcome.answer.ok) return refused(io, 'token regenerate', outcome.answer.detail);
  io.stdout(`${outcome.answer.token}\n`);
  io.stderr('new token generated; it is shown only now. Sessions under the old token have ended\n');
  return EXIT_OK;
}

function refused(io: CliIo, command: string, message: string): number {
  io.stderr(`webui ${command}: ${message}\n`);
  return EXIT_REFUSED;
}
