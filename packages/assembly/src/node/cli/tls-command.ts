import type { LoadedSettings } from '../../index.js';
import { ADMIN_ANSWERS } from '../control/admin-protocol.js';
import { askServer } from '../control/ask-server.js';
import type { CliIo } from './cli-io.js';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from './exit-codes.js';

/** `webui tls reload`: the running server reads its certificate and key again, as on SIGHUP, and says what it serves now. */
export async function tlsCommand(args: readonly string[], loaded: LoadedSettings, io: CliIo): Promise<number> {
  if (args.length !== 1 || args[0] !== 'reload') {
    io.stderr('webui tls: expected `tls reload`\n');
    return EXIT_USAGE;
  }
  const reached = await askServer(loaded.dataDir, { op: 'tls.reload' }, ADMIN_ANSWERS['tls.reload'], 'restart it to serve the new pair');
  if (reached.kind === 'stopped') {
    io.stderr(`webui tls reload: no server is running on ${loaded.dataDir}; the next start reads the pair\n`);
    return EXIT_REFUSED;
  }
  if (reached.kind === 'unreachable') {
    io.stderr(`webui tls reload: ${reached.message}\n`);
    return EXIT_REFUSED;
  }
  const { answer } = reached;
  if (!answer.ok) {
    io.stderr(`webui tls reload: ${answer.detail}\n`);
    return EXIT_REFUSED;
  }
  io.stdout(
    `${answer.changed ? 'serving a new certificate' : 'the certificate is unchanged'}: serial ${answer.serial}, ` +
      `names ${answer.names.join(', ')}, expires ${answer.not_after}\n  SHA-256 ${answer.fingerprint}\n`,
  );
  return EXIT_OK;
}
