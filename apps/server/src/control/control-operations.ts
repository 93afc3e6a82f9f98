import type { Core, SecurityEventSink } from '@webui/core';
import { banEntryJson, OperatorActions, type AppLogger } from '@webui/http-hono';
import { performAdminOperation } from './admin-operations.js';
import { parseControlRequest, type ControlAnswer, type ControlRequest } from './control-protocol.js';

const INVALID_TARGET = 'the target must be `all`, an IP address, a CIDR, or a key as `webui bans list` shows it';

/** What the server answers control requests over: the core its HTTP app uses, its audit trail and its log. */
export interface ControlServices {
  core: Core;
  audit: SecurityEventSink;
  logger: AppLogger;
}

/** Answers one request line over the same core the HTTP app uses: one implementation of every operation. */
export async function answerControlLine(line: string, services: ControlServices): Promise<ControlAnswer> {
  const parsed = parseControlRequest(line);
  if (!parsed.ok) return { ok: false, code: 'bad_request', detail: parsed.detail };
  try {
    return await perform(parsed.request, services);
  } catch (error) {
    // A failed write of webui.json (disk full) or a bug; the CLI still gets one line, and the log says which (never the request: it may hold a token).
    services.logger.error({ op: parsed.request.op, err: error instanceof Error ? error.message : String(error) }, 'a control request failed');
    return { ok: false, code: 'internal_error', detail: 'the server could not answer; see its log' };
  }
}

async function perform(request: ControlRequest, { core, audit, logger }: ControlServices): Promise<ControlAnswer> {
  switch (request.op) {
    case 'bans.list':
      return { ok: true, bans: (await core.bans.list()).map(banEntryJson) };
    case 'bans.lift': {
      const result = await new OperatorActions(core, audit, logger).liftBans(request.target, { address: null, via: 'cli' });
      if (!result.ok) return { ok: false, code: 'invalid_ban_target', detail: INVALID_TARGET };
      return { ok: true, lifted: result.value };
    }
    default:
      return performAdminOperation(request, { core, audit, via: 'cli', logger });
  }
}
