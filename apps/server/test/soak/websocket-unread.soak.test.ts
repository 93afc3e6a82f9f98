import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAND_IN_TOKEN, startGateway } from '../harness/proxies/gateway.js';
import { HttpClient } from '../harness/clients/http-client.js';
import { cleanupServers, startServer, type ServerProcess } from '../harness/processes/server-process.js';
import { startStandInUpstream, stopAllStandInUpstreams } from '../harness/stand-in-upstream.js';
import { createKey, ticketFor } from '../harness/clients/unread-socket.js';
import { readWebuiFile } from '../harness/webui-file.js';

/**
 * Issue 42, item 2, the whole attack on the real Node process: three read-key clients each send 20,000
 * `{"op":"subscribe","domain":"security","topic":"main"}` frames (about 1.3 MiB) and never read; a subscribe is answered
 * with the security snapshot of 200 events (~29 KB). The server's RSS (from /proc, its process only) grows by less than
 * 100 MB, and GET /health answers within 100 ms throughout. Before the channel's caps: +1,669 MB, /health silent for 18 s.
 * Then the same for the relay: three clients that do not read the bot's events, while the stand-in upstream publishes
 * 64 MiB to each. The clients are a process of their own (soak/unread-clients.mjs): this one only measures.
 *
 * A soak proof: `npm run test:soak` runs this file (vitest project `soak`, WEBUI_SOAK=1); `npm test` runs the attack in
 * small in websocket-unread.e2e.test.ts, which checks the close codes and the metrics on Node, Bun and Deno.
 */

afterAll(async () => {
  await stopAllStandInUpstreams();
  await cleanupServers();
});

const CLIENTS = Number(process.env['WEBUI_UNREAD_CLIENTS'] ?? 3);
const FRAMES = Number(process.env['WEBUI_UNREAD_FRAMES'] ?? 20_000);
const RSS_GROWTH_LIMIT_MB = 100;
const HEALTH_LIMIT_MS = 100;
/** Security events before the attack: the feed keeps 200, which make the ~29 KB snapshot. */
const SECURITY_EVENTS = 200;
const CAP_CLOSE = 'a WebSocket was closed at its cap';
const CONFIG = '[webui]\ntrusted_proxies = ["127.0.0.1"]\nglobal_failure_budget = 1000000\n';
/** What the stand-in publishes to each client in the relay's run, at most: past a few MB every socket should be closed. */
const RELAYED_MB = 64;
const CLIENTS_SCRIPT = fileURLToPath(new URL('../../soak/unread-clients.mjs', import.meta.url));
const PROBE_SCRIPT = fileURLToPath(new URL('../../soak/health-probe.mjs', import.meta.url));

function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

/** A child process speaking JSON lines: the next one, what to write it, and its end. */
function child(script: string, args: string[]) {
  const process_ = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: process_.stdout })[Symbol.asyncIterator]();
  return {
    next: async <T>(): Promise<T> => {
      const line = await lines.next();
      if (line.done) throw new Error(`${script} ended early`);
      return JSON.parse(line.value) as T;
    },
    tell: (word: string) => void process_.stdin.write(`${word}\n`),
    kill: () => void process_.kill('SIGKILL'),
  };
}

/**
 * Samples the server's RSS every 50 ms, and /health through soak/health-probe.mjs (a process of its own, so that the
 * measure is the server's answer, not the event loop of this process, which may be publishing as the stand-in), until stopped.
 */
async function sampler(server: ServerProcess) {
  let peakMb = rssMb(server.pid);
  const rss = setInterval(() => {
    peakMb = Math.max(peakMb, rssMb(server.pid));
  }, 50);
  const probe = child(PROBE_SCRIPT, [String(server.port)]);
  await probe.next();
  return async () => {
    probe.tell('stop');
    const health = await probe.next<{ worstMs: number; checks: number; failed: number }>();
    clearInterval(rss);
    return { peakMb: Math.max(peakMb, rssMb(server.pid)), ...health };
  };
}

/** The clients' process, each socket open and paused, ready to send `frames` subscribes to `domain`/main on "flood". */
async function startClients(port: number, frames: number, domain: string, tickets: string[]) {
  const clients = child(CLIENTS_SCRIPT, [String(port), String(frames), domain, ...tickets]);
  await clients.next<{ open: number }>();
  return clients;
}

describe(`sockets that never read: ${CLIENTS} read-key clients x ${FRAMES} subscribes`, () => {
  let server: ServerProcess;
  let operator: HttpClient;

  beforeAll(async () => {
    server = await startServer({ args: ['--host', '127.0.0.1'], config: CONFIG });
    operator = new HttpClient(server.baseUrl);
    const login = await operator.post('/auth/verify', { body: { token: readWebuiFile(server.dataDir).access_token } });
    expect(login.json).toMatchObject({ valid: true });
    // 200 failed logins from as many addresses (through the trusted proxy hop): a full security feed.
    for (let n = 1; n <= SECURITY_EVENTS; n++) {
      const guess = await new HttpClient(server.baseUrl).post('/auth/verify', {
        body: { token: 'Wrong-Token_2026!x' },
        headers: { 'x-forwarded-for': `10.42.${n >> 8}.${n & 255}` },
      });
      expect(guess.json).toMatchObject({ valid: false });
    }
  });

  it(
    `RSS grows by less than ${RSS_GROWTH_LIMIT_MB} MB and /health answers within ${HEALTH_LIMIT_MS} ms throughout`,
    { timeout: 300_000 },
    async () => {
      const tickets: string[] = [];
      for (let n = 0; n < CLIENTS; n++)
        tickets.push(await ticketFor(new HttpClient(server.baseUrl), await createKey(operator, `reader-${n}`, 'read')));
      const clients = await startClients(server.port, FRAMES, 'security', tickets);
      try {
        const baselineMb = rssMb(server.pid);
        const stop = await sampler(server);
        clients.tell('flood');
        const flood = await clients.next<{ sent: number[]; ms: number }>();
        // The server still reads what was written: sample on until it has closed every socket, and 2 s more.
        const capped = await everyCapped(server);
        // A real wait, kept: the soak samples RSS and /health for 2 s more, time being what it measures.
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        const { peakMb, worstMs, checks, failed } = await stop();
        clients.tell('resume');
        const { closes } = await clients.next<{ closes: Array<{ code: number; reason: string }> }>();
        const growthMb = peakMb - baselineMb;
        console.log(
          `unread: ${CLIENTS} clients x ${FRAMES} frames (${flood.sent.join(', ')} written in ${flood.ms} ms): ` +
            `RSS ${baselineMb.toFixed(0)} MB -> peak ${peakMb.toFixed(0)} MB (+${growthMb.toFixed(0)} MB), ` +
            `/health worst ${worstMs.toFixed(1)} ms over ${checks} checks (${failed} not 200), ` +
            `closes: ${closes.map((close) => `${close.code} ${close.reason}`).join('; ')}`,
        );
        expect(capped).toBe(true);
        expect(failed).toBe(0);
        expect(growthMb).toBeLessThan(RSS_GROWTH_LIMIT_MB);
        expect(worstMs).toBeLessThan(HEALTH_LIMIT_MS);
        for (const close of closes) expect(close).toEqual({ code: 1008, reason: 'too many requests' });
      } finally {
        clients.kill();
      }
    },
  );
});

describe(`the relay: ${CLIENTS} clients that do not read the bot's events, ${RELAYED_MB} MiB published to each`, () => {
  it(
    `RSS grows by less than ${RSS_GROWTH_LIMIT_MB} MB and /health answers within ${HEALTH_LIMIT_MS} ms throughout`,
    { timeout: 300_000 },
    async () => {
      const upstream = await startStandInUpstream({ token: STAND_IN_TOKEN });
      const { server, operator } = await startGateway({ url: upstream.url, server: { args: ['--host', '127.0.0.1'] } });
      const api = new HttpClient(server.baseUrl);
      api.setCookie('bot_session', operator.cookie('bot_session') ?? '');
      const tickets: string[] = [];
      for (let n = 0; n < CLIENTS; n++) tickets.push(await ticketFor(api));
      const subscribes = () =>
        upstream.channelMessages.filter((message) => (message.message as { op?: string } | undefined)?.op === 'subscribe');
      const clients = await startClients(server.port, 1, 'maisaka_monitor', tickets);
      try {
        clients.tell('flood');
        await clients.next();
        await upstream.waitFor(() => subscribes().length >= CLIENTS, 10_000, 'every subscribe relayed');
        const baselineMb = rssMb(server.pid);
        const stop = await sampler(server);
        // 16 KiB events, published until every client socket closed or each got its share.
        const data = { text: 'x'.repeat(16 * 1024) };
        let publishedMb = 0;
        while (upstream.openSockets > 0 && publishedMb < RELAYED_MB) {
          for (let i = 0; i < 64; i++) upstream.emitMonitor('stage.status', data, { transient: true });
          publishedMb += 1;
          await new Promise((resolve) => setImmediate(resolve));
        }
        const capped = await everyCapped(server);
        // A real wait, kept: the soak samples RSS and /health for 2 s more, time being what it measures.
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        const { peakMb, worstMs, checks, failed } = await stop();
        clients.tell('resume');
        const { closes } = await clients.next<{ closes: Array<{ code: number; reason: string }> }>();
        const growthMb = peakMb - baselineMb;
        console.log(
          `unread: relay, ${CLIENTS} clients, ${publishedMb} MiB published to each: ` +
            `RSS ${baselineMb.toFixed(0)} MB -> peak ${peakMb.toFixed(0)} MB (+${growthMb.toFixed(0)} MB), ` +
            `/health worst ${worstMs.toFixed(1)} ms over ${checks} checks (${failed} not 200), ` +
            `closes: ${closes.map((close) => `${close.code} ${close.reason}`).join('; ')}`,
        );
        expect(capped).toBe(true);
        expect(upstream.openSockets).toBe(0);
        expect(failed).toBe(0);
        expect(growthMb).toBeLessThan(RSS_GROWTH_LIMIT_MB);
        expect(worstMs).toBeLessThan(HEALTH_LIMIT_MS);
        for (const close of closes) expect(close).toEqual({ code: 1013, reason: 'send buffer full: the client does not read' });
      } finally {
        clients.kill();
      }
    },
  );
});

/** Whether the server closed every client at a cap within 60 s. */
function everyCapped(server: ServerProcess): Promise<boolean> {
  return server
    .waitForLog(() => server.logs().filter((line) => line.msg === CAP_CLOSE).length >= CLIENTS, 60_000)
    .then(
      () => true,
      () => false,
    );
}
