import { TOKEN_VIOLATION_MESSAGES } from '@webui/core';
import type { LoadedSettings } from '@webui/assembly';
import type { CliIo } from './cli-io.js';
import { openDataDir } from './data-dir-services.js';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from './exit-codes.js';

const NO_RECORD = 'no token yet: start the server once, or set one with `webui token set`\n';

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
  const newToken = (await io.readStdin()).replace(/\r?\n$/, '');
  const services = await openDataDir(loaded, { createIfMissing: true });
  if (!services) return EXIT_REFUSED;
  try {
    const result = await services.tokens.update(newToken);
    if (!result.ok) {
      io.stderr(`the new token is refused; it needs ${result.error.violations.map((v) => TOKEN_VIOLATION_MESSAGES[v]).join('; ')}\n`);
      return EXIT_REFUSED;
    }
    io.stderr('token updated; sessions under the old token have ended\n');
    return EXIT_OK;
  } finally {
    await services.close();
  }
}

async function regenerateToken(loaded: LoadedSettings, io: CliIo): Promise<number> {
  const services = await openDataDir(loaded, { createIfMissing: true });
  if (!services) return EXIT_REFUSED;
  try {
    const outcome = await services.tokens.regenerate();
    io.stdout(`${outcome.token}\n`);
    io.stderr('new token generated; it is shown only now. Sessions under the old token have ended\n');
    return EXIT_OK;
  } finally {
    await services.close();
  }
}
