import { randomUUID } from 'node:crypto';
import { dataField, epochSeconds, event, response, textField, type Envelope } from './envelopes.js';

/** The bot's name in the stand-in's chat events. */
export const STAND_IN_BOT_NAME = 'StandInBot';

/**
 * A `call` on the `chat` domain, answered as the original answers it: `session.open`, `message.send`,
 * `session.update_nickname`, `session.close`; the envelopes to send, in order (the response, then the session's events).
 * `sessions` maps the client's session names on this connection to the stand-in's session ids.
 */
export function chatCall(connectionId: string, sessions: Map<string, string>, message: Record<string, unknown>): Envelope[] {
  const id = message['id'];
  const method = textField(message, 'method');
  const session = textField(message, 'session');
  const data = dataField(message);

  if (method === 'session.open') {
    if (!session) return [response(id, false, { code: 'missing_session', message: 'session.open needs a session' })];
    const sessionId = `${connectionId}:${session}`;
    sessions.set(session, sessionId);
    const client = { type: 'webui', name: 'WebUI' };
    const userName = typeof data['user_name'] === 'string' ? data['user_name'] : 'human';
    const chat = (body: Record<string, unknown>) => event('chat', String(body['type']), body, { session });
    const opened = [
      response(id, true, { session, session_id: sessionId, client_mode: client.type, client }),
      chat({
        type: 'session_info',
        session_id: sessionId,
        user_id: 'webui_user',
        user_name: userName,
        bot_name: STAND_IN_BOT_NAME,
        client,
      }),
      chat({ type: 'history', messages: [], group_id: null }),
    ];
    // A restored session gets no welcome line, as in the original.
    if (data['restore'] === true) return opened;
    return [...opened, chat({ type: 'system', content: `Connected to ${STAND_IN_BOT_NAME}`, timestamp: epochSeconds() })];
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
    const userName = typeof data['user_name'] === 'string' ? data['user_name'] : '';
    return [response(id, true, { session, user_name: userName })];
  }
  // message.send: accepted at once; the message comes back as the `user_message` event the original broadcasts.
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
    sender: { name: typeof data['user_name'] === 'string' ? data['user_name'] : 'human', user_id: 'webui_user', is_bot: false },
    virtual_mode: false,
  };
  return [response(id, true, { accepted: true, session }), event('chat', 'user_message', echoed, { session })];
}
