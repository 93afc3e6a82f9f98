import { CLOSE_MESSAGE_TOO_BIG, PluginProgressBoard, PluginProgressDomain, WsHub } from '@webui/http-hono';
import fc from 'fast-check';
import type { WSContext } from 'hono/ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { ErrorLogger } from '../harness/error-logger.js';
import { propertyParameters } from '../harness/property-parameters.js';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { readWebuiFile } from '../harness/webui-file.js';

/**
 * Property-based tests of the WebSocket channel: any text or binary message gets exactly one
 * answer (a response or a pong) that is JSON with an op, or closes the socket with 1009 when it is
 * over 64 KiB; the socket stays open otherwise and nothing throws. In process for breadth, then
 * against the real server with the ws client.
 */

afterAll(cleanupServers);

const ANY_MESSAGE = propertyParameters({ seed: 2_101, numRuns: 400 });
const MAX_MESSAGE = 64 * 1024;

/** JSON with one field nested thousands deep: V8 parses it, but stringifying it back overflows the stack. */
const deepMessage = fc
  .tuple(
    fc.constantFrom('op', 'id', 'domain', 'topic', 'data', 'whole'),
    fc.integer({ min: 1_000, max: 30_000 }),
    fc.constantFrom('[', '{"x":'),
  )
  .map(([field, wanted, open]) => {
    const close = open === '[' ? ']' : '}';
    // As deep as fits under the 64 KiB limit: this is about depth, not size.
    const depth = Math.min(wanted, Math.floor((MAX_MESSAGE - 200) / (open.length + close.length)));
    const deep = `${open.repeat(depth)}0${close.repeat(depth)}`;
    if (field === 'whole') return deep;
    const fields: Record<string, string> = { op: '"subscribe"', id: '1', domain: '"logs"', topic: '"main"' };
    fields[field] = deep;
    return `{${Object.entries(fields)
      .map(([key, value]) => `"${key}":${value}`)
      .join(',')}}`;
  });

/** A valid ping of exactly `length` characters (ASCII, so as many bytes). */
function pingOfLength(length: number): string {
  const frame = '{"op":"ping","pad":""}';
  return `{"op":"ping","pad":"${'p'.repeat(length - frame.length)}"}`;
}

/** Text messages: envelopes with every field of every type, random JSON, random text, deep nesting, sizes around the limit. */
const textMessage = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)) },
  {
    weight: 4,
    arbitrary: fc
      .record(
        {
          op: fc.oneof(fc.constantFrom('ping', 'subscribe', 'unsubscribe', 'PING', '', 'event', 'response'), fc.jsonValue({ maxDepth: 2 })),
          id: fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.double(), fc.jsonValue({ maxDepth: 2 })),
          domain: fc.oneof(fc.constantFrom('logs', 'plugin_progress', 'system', ''), fc.jsonValue({ maxDepth: 2 })),
          topic: fc.oneof(fc.constantFrom('main', '', 'other'), fc.string({ maxLength: 300 }), fc.jsonValue({ maxDepth: 2 })),
          data: fc.oneof(
            fc.record(
              { replay: fc.oneof(fc.integer({ min: -10, max: 1_000 }), fc.double(), fc.jsonValue({ maxDepth: 2 })) },
              { requiredKeys: [] },
            ),
            fc.jsonValue({ maxDepth: 3 }),
          ),
          __proto__: fc.jsonValue({ maxDepth: 1 }),
        },
        { requiredKeys: [] },
      )
      .map((value) => JSON.stringify(value)),
  },
  { weight: 2, arbitrary: fc.string({ maxLength: 500 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 500 }) },
  { weight: 2, arbitrary: deepMessage },
  { weight: 1, arbitrary: fc.integer({ min: MAX_MESSAGE - 200, max: MAX_MESSAGE }).map(pingOfLength) },
);
const oversized = fc.integer({ min: MAX_MESSAGE + 1, max: MAX_MESSAGE + 5_000 }).map(pingOfLength);
type Message = string | Uint8Array;
const anyMessage: fc.Arbitrary<Message> = fc.oneof(
  { weight: 9, arbitrary: textMessage },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }) },
);

/** A socket that records what the hub sends and whether it closed it. */
function fakeSocket(): { socket: WSContext; sent: string[]; closed: () => { code?: number } | null } {
  const sent: string[] = [];
  let closed: { code?: number } | null = null;
  const socket = {
    get readyState() {
      return closed ? 3 : 1;
    },
    send: (data: string) => sent.push(data),
    close: (code?: number) => {
      closed = code === undefined ? {} : { code };
    },
  } as unknown as WSContext;
  return { socket, sent, closed: () => closed };
}

describe('fuzzing WebSocket messages in process (the hub)', () => {
  it(
    `any message: exactly one JSON answer with an op, or a 1009 close when over 64 KiB; never a throw ` + `(${ANY_MESSAGE.numRuns} runs)`,
    async () => {
      const logger = new ErrorLogger();
      const hub = new WsHub({
        logs: { recent: () => [], subscribe: () => () => undefined },
        domains: [new PluginProgressDomain(new PluginProgressBoard())],
        logger,
        now: () => 1_700_000_000_000,
        newConnectionId: () => 'c1',
        maxMessageBytes: MAX_MESSAGE,
      });
      await fc.assert(
        fc.asyncProperty(fc.oneof({ weight: 19, arbitrary: anyMessage }, { weight: 1, arbitrary: oversized }), async (message) => {
          const { socket, sent, closed } = fakeSocket();
          const events = hub.events({
            kind: 'token',
            session: 'session-token',
            status: { tokenSource: 'configured', requiresCustomToken: false },
          });
          events.onOpen?.(new Event('open'), socket);
          sent.length = 0;
          const data = typeof message === 'string' ? message : message.buffer;
          expect(() => events.onMessage?.(new MessageEvent('message', { data }), socket)).not.toThrow();
          if (typeof message === 'string' && message.length > MAX_MESSAGE) {
            expect(closed()).toEqual({ code: CLOSE_MESSAGE_TOO_BIG });
          } else {
            expect(closed()).toBeNull();
            const replies = sent.map((reply) => JSON.parse(reply) as { op?: unknown });
            for (const reply of replies) expect(reply.op).toMatch(/^(response|event|pong)$/);
            expect(replies.filter((reply) => reply.op === 'response' || reply.op === 'pong')).toHaveLength(1);
          }
          events.onClose?.(new Event('close') as CloseEvent, socket);
          expect(logger.errors).toEqual([]);
        }),
        ANY_MESSAGE,
      );
    },
  );
});

interface Connection {
  socket: WebSocket;
  replies: Array<{ op?: unknown }>;
  /** Text frames that were not JSON objects with an op. */
  malformed: string[];
  closed: Promise<number>;
}

/** Opens the channel with a fresh ticket and waits for system/ready. */
async function openChannel(server: ServerProcess, http: HttpClient, token: string): Promise<Connection> {
  const ticket = await http.get('/ws-token', { cookie: `bot_session=${encodeURIComponent(token)}` });
  const socket = new WebSocket(`ws://127.0.0.1:${server.port}/api/webui/ws?token=${String(ticket.json?.['token'])}`);
  const connection: Connection = {
    socket,
    replies: [],
    malformed: [],
    closed: new Promise((resolve) => socket.once('close', (code) => resolve(code))),
  };
  socket.on('message', (data, isBinary) => {
    const text = isBinary ? '<binary>' : String(data);
    try {
      const reply = JSON.parse(text) as { op?: unknown };
      if (typeof reply !== 'object' || reply === null || typeof reply.op !== 'string') throw new Error('no op');
      connection.replies.push(reply);
    } catch {
      connection.malformed.push(text.slice(0, 200));
    }
  });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_request, response) => reject(new Error(`upgrade refused: ${response.statusCode}`)));
  });
  return connection;
}

const answers = (connection: Connection) => connection.replies.filter((reply) => reply.op === 'response' || reply.op === 'pong').length;

async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  await vi.waitFor(
    () => {
      if (!check()) throw new Error(`${what} within ${timeoutMs} ms`);
    },
    { timeout: timeoutMs, interval: 5 },
  );
}

describe('fuzzing WebSocket messages against the real server', () => {
  let server: ServerProcess;
  let http: HttpClient;
  let token: string;
  const MESSAGE_BATCHES = propertyParameters({ seed: 2_102, numRuns: 40, endOnFailure: true });

  beforeAll(async () => {
    server = await startServer({ args: ['--host', '127.0.0.1'] });
    http = new HttpClient(server.baseUrl);
    token = readWebuiFile(server.dataDir).access_token;
  });

  it(
    `batches of messages: one answer each, JSON with an op, the socket open until a message is over 64 KiB (1009) ` +
      `(${MESSAGE_BATCHES.numRuns} runs)`,
    { timeout: 120_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(anyMessage, { minLength: 1, maxLength: 6 }),
          fc.option(oversized, { freq: 5, nil: undefined }),
          async (messages, tooBig) => {
            const connection = await openChannel(server, http, token);
            await waitFor(() => connection.replies.some((reply) => reply.op === 'event'), 5_000, 'no system/ready event');
            for (const message of messages) connection.socket.send(message, { binary: typeof message !== 'string' });
            // Answers come in order: once the sentinel ping is answered, every message before it must have been.
            connection.socket.send(JSON.stringify({ op: 'ping' }));
            await waitFor(
              () => answers(connection) >= messages.length + 1,
              5_000,
              `${answers(connection)} answers to ${messages.length + 1} messages`,
            );
            expect(answers(connection)).toBe(messages.length + 1);
            expect(connection.malformed).toEqual([]);
            expect(connection.socket.readyState).toBe(WebSocket.OPEN);

            if (tooBig === undefined) {
              connection.socket.close(1000);
            } else {
              connection.socket.send(tooBig);
              expect(await connection.closed).toBe(CLOSE_MESSAGE_TOO_BIG);
            }
            await connection.closed;
          },
        ),
        MESSAGE_BATCHES,
      );

      // The server is still healthy, logged no failure, and printed no stack trace.
      expect((await http.get('/health')).status).toBe(200);
      expect(server.logs().filter((line) => (line.level ?? 0) >= 50)).toEqual([]);
      expect(server.stderr()).not.toMatch(/\bError\b:|\n\s+at \S.*:\d+:\d+/);
    },
  );
});
