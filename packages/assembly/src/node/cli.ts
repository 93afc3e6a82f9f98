import { ConfigError, loadSettings, parseConfigFlags, type ExtensionsSource } from '../index.js';
import { auditCommand } from './cli/audit/audit-command.js';
import { bansCommand } from './cli/bans/bans-commands.js';
import { configCheck } from './cli/config-check.js';
import { processIo, type CliIo } from './cli/cli-io.js';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from './cli/exit-codes.js';
import { keysCommand } from './cli/keys/keys-commands.js';
import { serveCommand } from './cli/serve-command.js';
import { setupCommand } from './cli/setup-commands.js';
import { tlsCommand } from './cli/tls-command.js';
import { tokenCommand } from './cli/token-commands.js';
import { USAGE } from './cli/usage.js';

/**
 * `webui [command] [flags]` (see cli/usage.ts); returns the exit code, or 'running' while serving. `extensions`, a bot's
 * route groups and channel domains, are mounted by `serve` only: the other commands act on the data directory alone.
 */
export async function runCli(
  argv: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  io: CliIo = processIo,
  extensions?: ExtensionsSource,
): Promise<number | 'running'> {
  let rest: string[];
  try {
    rest = parseConfigFlags(argv).rest;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr(`webui: ${error.message}\n${USAGE}`);
    return EXIT_USAGE;
  }
  const [command = 'serve', ...args] = rest;
  if (command === 'help' || command === '--help' || command === '-h') {
    io.stdout(USAGE);
    return EXIT_OK;
  }
  if (
    !['serve', 'token', 'setup', 'keys', 'bans', 'audit', 'config', 'tls'].includes(command) ||
    (command === 'serve' && args.length > 0)
  ) {
    io.stderr(`webui: unknown command or option ${JSON.stringify(command === 'serve' ? args[0] : command)}\n${USAGE}`);
    return EXIT_USAGE;
  }
  if (command === 'config' && (args.length !== 1 || args[0] !== 'check')) {
    io.stderr('webui config: expected `config check`\n');
    return EXIT_USAGE;
  }

  let loaded;
  try {
    loaded = loadSettings({ argv, env, cwd });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr(`webui: configuration error: ${error.message}\n`);
    return EXIT_REFUSED;
  }

  try {
    switch (command) {
      case 'config':
        return await configCheck(loaded, io);
      case 'token':
        return await tokenCommand(args, loaded, io);
      case 'setup':
        return await setupCommand(args, loaded, io);
      case 'keys':
        return await keysCommand(args, loaded, io);
      case 'bans':
        return await bansCommand(args, loaded, io);
      case 'audit':
        return auditCommand(args, loaded, io);
      case 'tls':
        return await tlsCommand(args, loaded, io);
      default:
        return await serveCommand(loaded, io, extensions);
    }
  } catch (error) {
    // The data file could not be opened (a directory in its place, no permission): say so in one line.
    if (command !== 'serve' && error instanceof Error) {
      io.stderr(`webui ${command}: ${error.message}\n`);
      return EXIT_REFUSED;
    }
    throw error;
  }
}
