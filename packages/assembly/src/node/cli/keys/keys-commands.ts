import type { LoadedSettings } from '../../../index.js';
import { parseArgs } from 'node:util';
import { runAdminRequest } from '../admin-request.js';
import type { CliIo } from '../cli-io.js';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from '../exit-codes.js';
import { expiryCell, keyTable } from './key-table.js';

type Parsed = { ok: true; options: Record<string, string | boolean | undefined>; names: string[] } | { ok: false; message: string };

/** `webui keys create|list|revoke`: API keys for scripts, through the running server when one runs. */
export async function keysCommand(args: string[], loaded: LoadedSettings, io: CliIo): Promise<number> {
  const [action, ...rest] = args;
  switch (action) {
    case 'create': {
      const parsed = parse(rest, { scope: { type: 'string' }, expires: { type: 'string' } });
      if (!parsed.ok) return usage(io, `webui keys create: ${parsed.message}`);
      if (parsed.names.length !== 1)
        return usage(io, 'webui keys create: expected one key name, e.g. `webui keys create backup-script --scope read --expires 90d`');
      const scope = parsed.options['scope'] ?? 'read';
      if (scope !== 'read' && scope !== 'admin') return usage(io, 'webui keys create: --scope must be read or admin');
      const expires = parsed.options['expires'];
      return createKey(loaded, io, { name: parsed.names[0] as string, scope, expires: typeof expires === 'string' ? expires : null });
    }
    case 'list': {
      const parsed = parse(rest, { json: { type: 'boolean' } });
      if (!parsed.ok) return usage(io, `webui keys list: ${parsed.message}`);
      if (parsed.names.length > 0) return usage(io, `webui keys list: unknown argument ${JSON.stringify(parsed.names[0])}`);
      return listKeys(loaded, io, { json: parsed.options['json'] === true });
    }
    case 'revoke': {
      const parsed = parse(rest, { all: { type: 'boolean' } });
      if (!parsed.ok) return usage(io, `webui keys revoke: ${parsed.message}`);
      const all = parsed.options['all'] === true;
      if (all ? parsed.names.length !== 0 : parsed.names.length !== 1)
        return usage(io, 'webui keys revoke: expected one key name, or --all');
      return revokeKeys(loaded, io, all ? { all } : { name: parsed.names[0] as string });
    }
    default:
      return usage(io, `webui keys: expected create, list or revoke${action ? `, got ${JSON.stringify(action)}` : ''}`);
  }
}

async function createKey(
  loaded: LoadedSettings,
  io: CliIo,
  request: { name: string; scope: 'read' | 'admin'; expires: string | null },
): Promise<number> {
  const outcome = await runAdminRequest(loaded, { op: 'keys.create', ...request }, io);
  if (outcome.kind === 'unreachable') return refused(io, 'keys create', outcome.message);
  const { answer } = outcome;
  if (!answer.ok) return refused(io, 'keys create', answer.detail);
  // stdout holds the key alone, so `KEY=$(webui keys create ...)` captures exactly it.
  io.stdout(`${answer.key}\n`);
  const expiry = answer.created.expires_at === null ? 'never expires' : `expires ${expiryCell(answer.created)}`;
  io.stderr(
    `API key ${answer.created.name} created: scope ${answer.created.scope}, ${expiry}. It is shown only now; send it as Authorization: ` +
      `Bearer <key>\n`,
  );
  return EXIT_OK;
}

async function listKeys(loaded: LoadedSettings, io: CliIo, { json }: { json: boolean }): Promise<number> {
  const outcome = await runAdminRequest(loaded, { op: 'keys.list' }, io);
  if (outcome.kind === 'unreachable') return refused(io, 'keys list', outcome.message);
  const { answer } = outcome;
  if (!answer.ok) return refused(io, 'keys list', answer.detail);
  io.stdout(json ? `${JSON.stringify({ keys: answer.keys })}\n` : keyTable(answer.keys));
  return EXIT_OK;
}

async function revokeKeys(loaded: LoadedSettings, io: CliIo, target: { name: string } | { all: true }): Promise<number> {
  const outcome = await runAdminRequest(loaded, { op: 'keys.revoke', ...target }, io);
  if (outcome.kind === 'unreachable') return refused(io, 'keys revoke', outcome.message);
  const { answer } = outcome;
  if (!answer.ok) return refused(io, 'keys revoke', answer.detail);
  // --all with no key left is done, not refused: afterwards no key exists, as asked.
  if (answer.revoked.length === 0) io.stderr('no API key to revoke\n');
  io.stdout(answer.revoked.map((key) => `revoked ${key.name}\n`).join(''));
  return EXIT_OK;
}

/** Node's own option parser: `--scope admin` and `--scope=admin` alike, unknown options refused. */
function parse(args: string[], options: Record<string, { type: 'string' | 'boolean' }>): Parsed {
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { ok: true, options: values, names: positionals };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

function refused(io: CliIo, command: string, message: string): number {
  io.stderr(`webui ${command}: ${message}\n`);
  return EXIT_REFUSED;
}

function usage(io: CliIo, message: string): number {
  io.stderr(`${message}\n`);
  return EXIT_USAGE;
}
