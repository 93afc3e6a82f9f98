import type { LoadedSettings } from '../../index.js';
import { runAdminRequest } from './admin-request.js';
import type { CliIo } from './cli-io.js';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from './exit-codes.js';

/** `webui setup status|complete|reset`, through the running server when one runs. */
export async function setupCommand(args: string[], loaded: LoadedSettings, io: CliIo): Promise<number> {
  const [action, ...extra] = args;
  if ((action !== 'status' && action !== 'complete' && action !== 'reset') || extra.length > 0) {
    io.stderr(`webui setup: expected status, complete or reset${action ? `, got ${JSON.stringify([action, ...extra].join(' '))}` : ''}\n`);
    return EXIT_USAGE;
  }
  const outcome = await runAdminRequest(loaded, { op: `setup.${action}` }, io);
  if (outcome.kind === 'unreachable') return refused(io, action, outcome.message);
  if (!outcome.answer.ok) return refused(io, action, outcome.answer.detail);
  io.stdout(`first setup: ${outcome.answer.is_first_setup ? 'open' : 'completed'}\ntoken source: ${outcome.answer.token_source}\n`);
  return EXIT_OK;
}

function refused(io: CliIo, action: string, message: string): number {
  io.stderr(`webui setup ${action}: ${message}\n`);
  return EXIT_REFUSED;
}
