import type { LoadedSettings } from '../../../index.js';
import type { BanEntryJson } from '../../../index.js';
import { runServerStateRequest } from '../admin-request.js';
import type { BudgetJson } from '../../control/budget-body.js';
import { banTable, budgetLine, liftedLine } from './ban-table.js';
import type { CliIo } from '../cli-io.js';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from '../exit-codes.js';

// A running server the CLI cannot reach still answers over HTTP.
const INSTEAD = 'use GET or DELETE /api/webui/security/bans instead';

/**
 * `webui bans list [--json]`, `webui bans lift <address|cidr|all>` and `webui bans reset-budget`: over the running
 * server's control socket; with no server, on a shared store (Redis, where bans outlive servers) directly.
 */
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
    case 'reset-budget':
      if (rest.length > 0) return usage(io, `webui bans reset-budget: unexpected argument ${JSON.stringify(rest[0])}`);
      return resetBudget(loaded, io);
    default:
      return usage(io, `webui bans: expected list, lift or reset-budget${action ? `, got ${JSON.stringify(action)}` : ''}`);
  }
}

async function listBans(loaded: LoadedSettings, io: CliIo, { json }: { json: boolean }): Promise<number> {
  const reached = await runServerStateRequest(loaded, { op: 'bans.list' }, io, INSTEAD);
  if (reached.kind === 'unreachable') {
    io.stderr(`webui bans list: ${reached.message}\n`);
    return EXIT_REFUSED;
  }
  let bans: BanEntryJson[];
  // Null with no server: nothing is counted anywhere.
  let budget: BudgetJson | null;
  if (reached.kind === 'stopped') {
    // Not an error: with no server nothing is in force, and an empty list says exactly that.
    io.stderr(
      `no server is running on ${loaded.dataDir}, so no bans are in force: bans and failure counts live in the running server's memory ` +
        `and ended when it stopped\n`,
    );
    bans = [];
    budget = null;
  } else if (reached.answer.ok) {
    ({ bans, budget } = reached.answer);
  } else {
    io.stderr(`webui bans list: ${reached.answer.detail}\n`);
    return EXIT_REFUSED;
  }
  io.stdout(
    json ? `${JSON.stringify({ bans, budget })}\n` : banTable(bans, Date.now()) + (budget === null ? '' : `\n${budgetLine(budget)}`),
  );
  return EXIT_OK;
}

async function liftBans(loaded: LoadedSettings, io: CliIo, target: string): Promise<number> {
  const reached = await runServerStateRequest(loaded, { op: 'bans.lift', target }, io, INSTEAD);
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

async function resetBudget(loaded: LoadedSettings, io: CliIo): Promise<number> {
  const reached = await runServerStateRequest(loaded, { op: 'bans.reset_budget' }, io, 'restart it to empty the budget');
  if (reached.kind === 'unreachable') {
    io.stderr(`webui bans reset-budget: ${reached.message}\n`);
    return EXIT_REFUSED;
  }
  if (reached.kind === 'stopped') {
    io.stderr(
      `nothing reset: no server is running on ${loaded.dataDir}, and the global failure budget lives only in a running server's memory\n`,
    );
    return EXIT_REFUSED;
  }
  const { answer } = reached;
  if (!answer.ok) {
    io.stderr(`webui bans reset-budget: ${answer.detail}\n`);
    return EXIT_REFUSED;
  }
  io.stdout(
    `global failure budget reset: ${answer.cleared} ${answer.cleared === 1 ? 'failure' : 'failures'} ` +
      `forgotten\n${budgetLine(answer.budget)}`,
  );
  return EXIT_OK;
}

function usage(io: CliIo, message: string): number {
  io.stderr(`${message}\n`);
  return EXIT_USAGE;
}
