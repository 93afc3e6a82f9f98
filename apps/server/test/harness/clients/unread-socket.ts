import type { HttpClient } from './http-client.js';
import type { ServerProcess } from '../processes/server-process.js';
import { connect, type WsClient } from './ws-client.js';

/** A ticket from `/ws-token` for `client`: its cookie, or `bearer` (an API key) alone. */
export async function ticketFor(client: HttpClient, bearer?: string): Promise<string> {
  const answer = await client.get(
    '/ws-token',
    bearer === undefined ? {} : { headers: { authorization: `Bearer ${bearer}` }, cookie: null },
  );
  const ticket = answer.json?.['token'];
  if (typeof ticket !== 'string') throw new Error(`no ticket: ${answer.status} ${answer.text}`);
  return ticket;
}

/** A new API key of `scope`, made by `operator` (logged in with the access token). */
export async function createKey(operator: HttpClient, name: string, scope: 'read' | 'admin'): Promise<string> {
  const created = await operator.post('/keys', { body: { name, scope, expires: null } });
  const key = created.json?.['key'];
  if (typeof key !== 'string') throw new Error(`no key: ${created.status} ${created.text}`);
  return key;
}

/** The channel opened with `ticket`, past its system/ready; then it stops reading (its TCP socket paused), as a client that never reads. */
export async function openUnreadSocket(server: ServerProcess, ticket: string): Promise<WsClient> {
  const handshake = await connect(server, ticket);
  if (!handshake.opened) throw new Error(`handshake refused with ${handshake.status}`);
  await handshake.client.waitFor((message) => message['event'] === 'ready', 5_000, 'system/ready');
  handshake.client.socket.pause();
  return handshake.client;
}

/** Sends `frame` `count` times as fast as the socket takes them; resolves once the last one is written or the socket is gone. */
export function flood(client: WsClient, frame: string, count: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = client.socket;
    socket.once('close', () => resolve());
    for (let i = 0; i < count && socket.readyState === socket.OPEN; i++) {
      // A write the server cut short fails: the socket is gone, which the close above reports.
      socket.send(frame, i === count - 1 ? () => resolve() : () => undefined);
    }
    if (socket.readyState !== socket.OPEN) resolve();
  });
}

export const SUBSCRIBE_SECURITY = JSON.stringify({ op: 'subscribe', id: 1, domain: 'security', topic: 'main' });

/** A counter's value in a Prometheus text, 0 when it is absent. */
export function metricValue(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}
