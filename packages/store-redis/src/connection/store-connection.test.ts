import { StoreUnavailableError } from '@webui/core';
import { Redis } from 'ioredis';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LuaScript } from '../lua/lua-script.js';
import { useRedisServer } from '../redis-test-server.js';
import { StoreConnection } from './store-connection.js';

const redis = useRedisServer();
const ECHO = new LuaScript('return ARGV[1]');
let clients: Redis[] = [];
afterEach(() => {
  for (const client of clients) client.disconnect();
  clients = [];
});

/** A StoreConnection on a client of the test's redis-server, its clock read, and a count of the writes its socket makes. */
async function openConnection(): Promise<{ connection: StoreConnection; client: Redis; writes: () => number }> {
  const client = new Redis(redis.server().url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true });
  clients.push(client);
  await client.connect();
  const connection = new StoreConnection('test');
  connection.attach(client);
  await connection.deadline.learn([client]);
  // Each call of _write or _writev is one write to the socket (a syscall).
  const socket = client.stream as Socket & { _write: (...args: unknown[]) => void; _writev: (...args: unknown[]) => void };
  let writes = 0;
  for (const name of ['_write', '_writev'] as const) {
    const original = socket[name].bind(socket);
    socket[name] = (...args: unknown[]) => {
      writes++;
      original(...args);
    };
  }
  return { connection, client, writes: () => writes };
}

describe('StoreConnection writes (issue 44)', () => {
  it('the commands sent in one turn of the event loop leave in one write, each answered', async () => {
    const { connection, writes } = await openConnection();
    await connection.run(ECHO, [], ['first']);
    const before = writes();
    const answers = Promise.all(Array.from({ length: 20 }, (_, i) => connection.run(ECHO, [], [`call-${i}`])));
    expect(await answers).toEqual(Array.from({ length: 20 }, (_, i) => `call-${i}`));
    expect(writes() - before).toBe(1);
    // The next turn's commands go in a write of their own.
    expect(await Promise.all([connection.run(ECHO, [], ['a']), connection.run(ECHO, [], ['b'])])).toEqual(['a', 'b']);
    expect(writes() - before).toBe(2);
  });

  it('a command held for the turn whose connection closes meanwhile fails as unavailable, not later', async () => {
    const { connection, client } = await openConnection();
    await connection.run(ECHO, [], ['first']);
    const held = connection.run(ECHO, [], ['held']);
    // The socket is lost before the turn ends: what it held is never written.
    client.stream.destroy();
    await expect(held).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(connection.run(ECHO, [], ['after'])).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
