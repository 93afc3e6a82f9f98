import type { BanPolicy } from '@webui/core';
import { banEntryJson, type AppLogger } from '@webui/http-hono';
import { parseControlRequest, type ControlAnswer, type ControlRequest } from './control-protocol.js';

const INVALID_TARGET = 'the target must be `all`, an IP address, a CIDR, or a key as `webui bans list` shows it';

/** Answers one request line over the same BanPolicy the HTTP app uses: one implementation of listing and lifting. */
export async function answerControlLine(line: string, bans: BanPolicy, logger: AppLogger): Promise<ControlAnswer> {
  const parsed = parseControlRequest(line);
  if (!parsed.ok) return { ok: false, code: 'bad_request', detail: parsed.detail };
  try {
    return await perform(parsed.request, bans, logger);
  } catch (error) {
    // The file store keeps bans in memory, so this is a bug, not an outage; the CLI still gets one line.
    logger.error({ op: parsed.request.op, err: error instanceof Error ? error.message : String(error) }, 'a control request failed');
    return { ok: false, code: 'internal_error', detail: 'the server could not answer; see its log' };
  }
}

async function perform(request: ControlRequest, bans: BanPolicy, logger: AppLogger): Promise<ControlAnswer> {
  switch (request.op) {
    case 'bans.list':
      return { ok: true, bans: (await bans.list()).map(banEntryJson) };
    case 'bans.lift': {
      const result = await bans.lift(request.target);
      if (!result.ok) return { ok: false, code: 'invalid_ban_target', detail: INVALID_TARGET };
      const lifted = result.value.map(banEntryJson);
      logger.info({ target: request.target, lifted: lifted.map((entry) => entry.key), via: 'cli' }, lifted.length > 0 ? 'bans lifted' : 'ban lift matched nothing');
      return { ok: true, lifted };
    }
  }
}
