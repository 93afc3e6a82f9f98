import { isPending } from '@webui/core';
import { SESSION_CHECK_TARGET, type SessionCheckShortcut } from '@webui/http-hono';
import type { RequestListener } from 'node:http';
import { plainIncomingReader, writePlainAnswer } from './plain-exchange.js';

/**
 * Puts the app's GET /auth/check shortcut in front of the Hono listener: a request it takes is
 * answered straight on Node's response; every other request, and any it leaves, goes to `app`.
 */
export function withSessionCheckShortcut(shortcut: SessionCheckShortcut, app: RequestListener): RequestListener {
  const readPlain = plainIncomingReader();
  return (incoming, outgoing) => {
    // The one comparison every other request pays.
    if (incoming.url !== SESSION_CHECK_TARGET) return app(incoming, outgoing);
    const plain = readPlain(incoming);
    const answer = plain === null ? null : shortcut(plain.request);
    if (answer === null) return app(incoming, outgoing);
    if (!isPending(answer)) return writePlainAnswer(outgoing, answer);
    answer.then(
      (answered) => writePlainAnswer(outgoing, answered),
      // The shortcut answers its own failures; this only guards against a throw while writing.
      () => outgoing.destroy(),
    );
  };
}
