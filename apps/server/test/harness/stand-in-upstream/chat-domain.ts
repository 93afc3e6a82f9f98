import { randomUUID } from 'node:crypto';
import { dataField, epochSeconds, event, response, textField, type Envelope } from './envelopes.js';

/** The bot's name in the stand-in's chat events. */
export const STAND_IN_BOT_NAME = 'StandInBot';
/** The dashboard user as the original names it: `webui_user_` and 16 hex digits. */
const USER_ID = 'webui_user_0123456789abcdef';

/**
 * A `call` on the `chat` domain, answered as the original answers it: `session.open`, `message.send`,
 * `session.update_nickname`, `session.close`; the envelopes to send, in the original's order.
 * `sessions` maps the client's session names on this connection to the stand-in's session ids.
 */
export function chatCall(connectionId: string, sessions: Map<string, string>, message: Record<string, unknown>): Envelope[] {
  const id = message['id'];
  const method = textField(message, 'method');
  const session = textField(message, 'session');
  const data = dataField(message);
  const userName = typeof data['user_name'] === 'string' ? data['user_name'] : undefined;

  if (method === 'session.open') {
    if (!session) return [response(id, false, { code: 'missing_session', message: 'session.open needs a session' })];
    const sessionId = `${connectionId}:${session}`;
    sessions.set(session, sessionId);
    const client = { type: 'webui', name: 'Stand-in WebUI' };
    const info = {
      session_id: sessionId,
      user_id: USER_ID,
      user_name: userName ?? 'human',
      bot_name: STAND_IN_BOT_NAME,
      platform: 'webui',
    };
    const capabilities = { history: true, rich_segments: true, typing: true, attachments: true, nickname_update: true };
    const opened = [
      response(id, true, { session, session_id: sessionId, client_mode: client.type, client }),
      chatEvent(session, { type: 'session_info', ...info, client_mode: client.type, client, capabilities }),
      chatEvent(session, { type: 'history', messages: [], group_id: null }),
    ];
    // A restored session gets no welcome line, as in the original.
    if (data['restore'] === true) return opened;
    return [...opened, chatEvent(session, { type: 'system', content: `Connected to ${STAND_IN_BOT_NAME}`, timestamp: epochSeconds() })];
  }

  if (!['session.close', 'message.send', 'session.update_nickname'].includes(method)) {
    return [response(id, false, { code: 'unsupported_method', message: `unsupported chat method: ${method}` })];
  }
  if (!sessions.has(session)) return [response(id, false, { code: 'session_not_found', message: `no chat session: ${session}` })];

  if (method === 'session.close') {
    sessions.delete(session);
    return [response(id, true, { session })];
  }
  if (method === 'session.update_nickname') {
    // The original sends the session its `nickname_updated` event before the response.
    return [
      chatEvent(session, { type: 'nickname_updated', user_name: userName ?? '', timestamp: epochSeconds() }),
      response(id, true, { session, user_name: userName ?? '' }),
    ];
  }
  // message.send: accepted at once; the message comes back as the original's `user_message` event, then typing on and off
  // (the original's bot would answer in between).
  const content = typeof data['content'] === 'string' ? data['content'] : '';
  const echoed = {
    type: 'user_message',
    content,
    raw_content: content,
    images: [],
    emojis: [],
    files: [],
    voices: [],
    group_id: null,
    message_id: randomUUID(),
    timestamp: epochSeconds(),
    sender: { name: userName ?? '', user_id: USER_ID, is_bot: false },
    virtual_mode: false,
  };
  return [
    response(id, true, { accepted: true, session }),
    chatEvent(session, echoed),
    chatEvent(session, { type: 'typing', is_typing: true }),
    chatEvent(session, { type: 'typing', is_typing: false }),
  ];
}

/** A chat event as the original sends it: named after its data's `type`, carrying the client's session name. */
function chatEvent(session: string, body: Record<string, unknown> & { type: string }): Envelope {
  return event('chat', body.type, body, { session });
}
