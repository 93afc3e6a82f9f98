import { storeIsShared, type LoadedSettings } from '../../index.js';
import { AuditLogFile } from '@webui/store-json';
import * as v from 'valibot';
import { performAdminOperation } from '../control/admin-operations.js';
import { ADMIN_ANSWERS, type AdminAnswerTo, type AdminOp, type AdminRequest } from '../control/admin-protocol.js';
import { askServer } from '../control/ask-server.js';
import type { CliIo } from './cli-io.js';
import { openDataDir } from './data-dir-services.js';

// A running server the CLI cannot reach keeps its data: writing the file behind its back is never the way.
const INSTEAD = 'stop it and run this command again, or use the HTTP API; nothing was changed';

// Only these may make the record of a data directory no server ever ran on; the others need one.
const CREATES_RECORD: ReadonlySet<AdminOp> = new Set<AdminOp>(['keys.create', 'token.set', 'token.regenerate']);

export type AdminOutcome<Answer> = { kind: 'answered'; answer: Answer } | { kind: 'unreachable'; message: string };

/** As AdminOutcome, or no server running and the state asked about held only by a running server. */
export type ServerOnlyOutcome<Answer> = AdminOutcome<Answer> | { kind: 'stopped' };

/**
 * Runs an admin request where it belongs: on the running server, through its control socket, so the
 * change is in force at once and in the server's audit trail; with no server, on the data directory
 * itself, this process appending the event to audit.log. Both answers are checked against one schema.
 * `instead` ends the message for a running server the CLI cannot reach: what the operator can do.
 */
export async function runAdminRequest<R extends AdminRequest>(
  loaded: LoadedSettings,
  request: R,
  io: CliIo,
  instead = INSTEAD,
): Promise<AdminOutcome<AdminAnswerTo<R['op']>>> {
  const schema = ADMIN_ANSWERS[request.op];
  const reached = await askServer(loaded.dataDir, request, schema, instead);
  if (reached.kind !== 'stopped') return reached;
  return { kind: 'answered', answer: v.parse(schema, await performLocally(loaded, request, io)) };
}

/**
 * Runs a request about state that only a running server holds unless the store is shared (bans: with the
 * data directory's file, failure counts live in the server's memory; with Redis, in Redis): with no server,
 * on a shared store this process answers it, on the file it reports the server stopped.
 */
export async function runServerStateRequest<R extends AdminRequest>(
  loaded: LoadedSettings,
  request: R,
  io: CliIo,
  instead: string,
): Promise<ServerOnlyOutcome<AdminAnswerTo<R['op']>>> {
  if (storeIsShared(loaded.settings)) return runAdminRequest(loaded, request, io, instead);
  const reached = await askServer(loaded.dataDir, request, ADMIN_ANSWERS[request.op], instead);
  return reached.kind === 'stopped' ? { kind: 'stopped' } : reached;
}

async function performLocally(loaded: LoadedSettings, request: AdminRequest, io: CliIo): Promise<unknown> {
  const services = await openDataDir(loaded, { createIfMissing: CREATES_RECORD.has(request.op) });
  if (!services) return { ok: false, code: 'no_data', detail: `no data yet in ${loaded.dataDir}: start the server once first` };
  const audit = new AuditLogFile({
    dataDir: loaded.dataDir,
    maxBytes: loaded.settings.auditMaxBytes,
    keep: loaded.settings.auditKeep,
    // The change itself is made; the operator learns that its record is missing.
    onError: (error) =>
      io.stderr(
        `webui: warning: the event could not be appended to the audit log: ${error instanceof Error ? error.message : String(error)}\n`,
      ),
  });
  try {
    return await performAdminOperation(request, { core: services.core, audit, via: 'cli' });
  } finally {
    audit.close();
    await services.close();
  }
}
