import WebSocket, { type ClientOptions } from 'ws';
import { eventually, type ServerProcess } from '../processes/server-process.js';

export type Envelope = Record<string, unknown> & { op: string };

/** An open socket that keeps every message it got, and how it closed. */
export class WsClient {
  readonly messages: Envelope[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private nextId = 1;

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => this.messages.push(JSON.parse(data.toString('utf8')) as Envelope));
    this.closed = new Promise((resolve) =>
      socket.once('close', (code: number, reason: Buffer) => resolve({ code, reason: reason.toString('utf8') })),
    );
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  async waitFor(predicate: (message: Envelope) => boolean, timeoutMs = 3_000, what = 'message'): Promise<Envelope> {
    let found: Envelope | undefined;
    await eventually(() => (found = this.messages.find(predicate)) !== undefined, timeoutMs, what);
    return found as Envelope;
  }

  /** Sends a request with a fresh id and resolves with its response. */
  async request(message: Record<string, unknown>): Promise<Envelope> {
    const id = `r${this.nextId++}`;
    this.send({ ...message, id });
    return this.waitFor((envelope) => envelope.op === 'response' && envelope['id'] === id, 3_000, `response ${id}`);
  }

  events(domain: string, event: string): Envelope[] {
    return this.messages.filter((message) => message.op === 'event' && message['domain'] === domain && message['event'] === event);
  }

  async closedWithin(timeoutMs: number): Promise<{ code: number; reason: string }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`socket not closed within ${timeoutMs} ms`)), timeoutMs);
    });
    return Promise.race([this.closed, timeout]).finally(() => clearTimeout(timer));
  }

  close(): void {
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) this.socket.terminate();
  }
}

export type Handshake = { status: number; opened: false } | { opened: true; client: WsClient };

// Every socket a test file opened is closed when the file ends (harness/each-file.ts calls this from afterAll).
const openClients: WsClient[] = [];
export function closeOpenClients(): void {
  for (const client of openClients.splice(0)) client.close();
}

/** Opens /api/webui/ws with `ticket`; resolves with the refusal's HTTP status or the open client. */
export function connect(server: ServerProcess, ticket: string | undefined, options: ClientOptions = {}): Promise<Handshake> {
  const url = `ws://127.0.0.1:${server.port}/api/webui/ws${ticket === undefined ? '' : `?token=${encodeURIComponent(ticket)}`}`;
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, options);
    const client = new WsClient(socket);
    socket.on('error', (error) => reject(error));
    socket.once('unexpected-response', (_req, res) => {
      res.resume();
      socket.removeAllListeners('error');
      socket.on('error', () => undefined);
      socket.terminate();
      resolve({ status: res.statusCode ?? 0, opened: false });
    });
    socket.once('open', () => {
      openClients.push(client);
      resolve({ opened: true, client });
    });
  });
}
