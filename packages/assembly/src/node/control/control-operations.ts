import { afterAuditWritten, type Core, type Logger, type SecurityEventSink } from '@webui/core';
import type { TlsService } from '../../index.js';
import { performAdminOperation } from './admin-operations.js';
import { parseControlRequest, type ControlAnswer } from './control-protocol.js';

/** What the server answers control requests over: the core its HTTP app uses, its audit trail and its log. */
export interface ControlServices {
  core: Core;
  audit: SecurityEventSink;
  logger: Logger;
  /** The server's HTTPS pair, which `tls.reload` reloads. */
  tls?: TlsService | undefined;
}

/** Answers one request line over the same core the HTTP app uses: one implementation of every operation. */
export async function answerControlLine(line: string, services: ControlServices): Promise<ControlAnswer> {
  const parsed = parseControlRequest(line);
  if (!parsed.ok) return { ok: false, code: 'bad_request', detail: parsed.detail };
  try {
    // The CLI may read audit.log right after: the answer waits for its line, as the HTTP app's do.
    return await afterAuditWritten(services.audit, await performAdminOperation(parsed.request, { ...services, via: 'cli' }));
  } catch (error) {
    // A failed write of webui.json (disk full) or a bug; the CLI still gets one line, and the log says which (never the request: it may
    // hold a token).
    services.logger.error(
      { op: parsed.request.op, err: error instanceof Error ? error.message : String(error) },
      'a control request failed',
    );
    return { ok: false, code: 'internal_error', detail: 'the server could not answer; see its log' };
  }
}
