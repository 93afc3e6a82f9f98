// Mixed traffic at a fixed rate against one server, with two writers whose last acknowledged writes the file must hold.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import WebSocket from 'ws';

const PREFIX = '/api/webui';

/** Share of each kind of request in every hundred (the two writers run beside these, at their own pace). */
const MIX = {
  check: 24,
  status: 8,
  verifyGood: 14,
  verifyBad: 20,
  bruteForce: 2,
  wsToken: 27,
  wsConnect: 5,
};

/** The kinds in an interleaved order, so every short stretch of time carries the whole mix. */
function schedule() {
  const order = [];
  const left = { ...MIX };
  while (order.length < 100) {
    for (const kind of Object.keys(left)) {
      if (left[kind] > 0) {
        order.push(kind);
        left[kind] -= 1;
      }
    }
  }
  return order;
}

/** The HTTP status of an outcome: a number, or a label such as "401 unknown_ticket"; 0 for the rest. */
export function statusOf(outcome) {
  return typeof outcome === 'number' ? outcome : Number.parseInt(String(outcome), 10) || 0;
}

class Tally {
  constructor() {
    /** kind -> status (or 'error') -> count */
    this.byKind = new Map();
    this.samples = [];
  }

  count(kind, outcome, detail) {
    const counts = this.byKind.get(kind) ?? new Map();
    counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
    this.byKind.set(kind, counts);
    const bad = outcome === 'error' || statusOf(outcome) >= 500;
    if (bad && this.samples.length < 20) this.samples.push(`${kind}: ${outcome} ${detail ?? ''}`.trim());
  }

  byStatus() {
    const totals = new Map();
    for (const counts of this.byKind.values()) for (const [outcome, n] of counts) totals.set(outcome, (totals.get(outcome) ?? 0) + n);
    return totals;
  }

  total() {
    let sum = 0;
    for (const n of this.byStatus().values()) sum += n;
    return sum;
  }
}

/**
 * Drives `server` for `durationS` seconds at `rate` requests a second. Returns the tally and the
 * outcome of the lost-update check. `onTick(elapsedS)` is called every second.
 */
export async function runMixedTraffic({ server, rate, durationS, onTick = () => undefined }) {
  // Idle sockets are retired by the client at 3 s, well before the server's 5 s keep-alive close: Node's agent only
  // honours the server's `Keep-Alive: timeout` hint when it has a timeout of its own, and without one a request
  // written on a socket the server is closing that instant fails with "socket hang up" (a client-side race, not an
  // unanswered request).
  const agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: 3_000 });
  const tally = new Tally();
  let current = JSON.parse(readFileSync(join(server.dataDir, 'webui.json'), 'utf8')).access_token;
  let addressSerial = 0;
  // A fresh client address per request through the trusted proxy: a request that raced a token rotation with
  // the old cookie is one failed guess for its own address only, never enough to ban the load generator.
  const freshAddress = () => {
    addressSerial += 1;
    return `100.${64 + ((addressSerial >> 16) & 63)}.${(addressSerial >> 8) & 255}.${addressSerial & 255}`;
  };
  const cookie = () => `bot_session=${encodeURIComponent(current)}`;

  const http = (method, path, { headers = {}, body } = {}) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          method,
          path: `${PREFIX}${path}`,
          agent,
          headers: {
            'x-forwarded-for': freshAddress(),
            ...headers,
            ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
          },
        },
        (res) => {
          const chunks = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            let json = null;
            try {
              json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            } catch {
              // Not JSON: the status says enough.
            }
            resolve({ status: res.statusCode ?? 0, json });
          });
        },
      );
      req.setTimeout(15_000, () => req.destroy(new Error('no answer within 15 s')));
      req.on('error', reject);
      req.end(payload);
    });

  const counted = (kind, promise) =>
    promise.then(
      (response) => {
        tally.count(kind, response.status, response.status >= 500 ? JSON.stringify(response.json) : undefined);
        return response;
      },
      (error) => {
        tally.count(kind, 'error', error.message);
        return null;
      },
    );

  const wsConnect = async () => {
    const ticket = await counted('wsConnect', http('GET', '/ws-token', { headers: { cookie: cookie() } }));
    if (!ticket?.json?.success) return;
    await new Promise((resolve) => {
      const socket = new WebSocket(`ws://127.0.0.1:${server.port}${PREFIX}/ws?token=${ticket.json.token}`);
      let settled = false;
      const done = (outcome, detail) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        tally.count('wsSocket', outcome, detail);
        resolve();
      };
      const timer = setTimeout(() => {
        done('error', 'no ready event within 10 s');
        socket.terminate();
      }, 10_000);
      socket.once('message', (data) => {
        const ready = JSON.parse(String(data));
        if (ready.op === 'event' && ready.event === 'ready') socket.close(1000);
        else done('error', `first message was not system/ready: ${String(data).slice(0, 200)}`);
      });
      socket.once('close', (code) => {
        // 1000 our close, 4001 the token rotated while it was open; anything else is a fault.
        if (code === 1000 || code === 4001) done(`ws ${code}`);
        else done('error', `closed with ${code}`);
      });
      // A ticket revoked by a rotation between issue and use is refused with 401: expected.
      socket.once('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          let code = '';
          try {
            code = JSON.parse(text).code;
          } catch {
            // No error body (docs/decisions/0001-error-bodies.md): reported as the bare status.
          }
          // Reported with its error code (docs/decisions/0001-error-bodies.md): after a rotation, unknown_ticket (revoked) or session_revoked.
          done(code ? `${res.statusCode} ${code}` : (res.statusCode ?? 0), text.slice(0, 200));
          socket.terminate();
        });
      });
      socket.on('error', (error) => done('error', error.message));
    });
  };

  const senders = {
    check: () => counted('check', http('GET', '/auth/check', { headers: { cookie: cookie() } })),
    status: () => counted('status', http('GET', '/setup/status', { headers: { cookie: cookie() } })),
    verifyGood: () => counted('verifyGood', http('POST', '/auth/verify', { body: { token: current } })),
    verifyBad: () => counted('verifyBad', http('POST', '/auth/verify', { body: { token: `wrong-${randomBytes(6).toString('hex')}` } })),
    // One address guessing over and over: banned after five, 429 from then on.
    bruteForce: () =>
      counted(
        'bruteForce',
        http('POST', '/auth/verify', {
          headers: { 'x-forwarded-for': '203.0.113.66' },
          body: { token: `guess-${randomBytes(6).toString('hex')}` },
        }),
      ),
    wsToken: () => counted('wsToken', http('GET', '/ws-token', { headers: { cookie: cookie() } })),
    wsConnect,
  };

  // ---- the two writers -------------------------------------------------------------------
  let stopping = false;
  const writes = { tokenAcks: 0, lastToken: current, setupAcks: 0, lastCompleted: null, lost: [] };
  const fileRecord = () => JSON.parse(readFileSync(join(server.dataDir, 'webui.json'), 'utf8'));
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  const rotator = async () => {
    for (let n = 1; !stopping; n++) {
      await sleep(1_000);
      if (stopping) break;
      const next = `Soak-${n}-${randomBytes(8).toString('hex')}!Kx`;
      const response = await counted('rotate', http('POST', '/auth/update', { headers: { cookie: cookie() }, body: { new_token: next } }));
      if (response?.status !== 200) continue;
      current = next;
      writes.lastToken = next;
      writes.tokenAcks += 1;
      // The toggler writes the same record meanwhile: it must carry the new token, never an older one.
      const inFile = fileRecord().access_token;
      if (inFile !== next) writes.lost.push(`after update ${n} the file holds another token`);
    }
  };
  const toggler = async () => {
    for (let n = 0; !stopping; n++) {
      const complete = n % 2 === 0;
      const response = await counted(
        'toggle',
        http('POST', complete ? '/setup/complete' : '/setup/reset', { headers: { cookie: cookie() } }),
      );
      if (response?.status === 200) {
        writes.setupAcks += 1;
        writes.lastCompleted = complete;
        if (response.json?.is_first_setup !== !complete)
          writes.lost.push(`setup ${complete ? 'complete' : 'reset'} answered is_first_setup ${response.json?.is_first_setup}`);
      }
      await sleep(40);
    }
  };

  // ---- the open-loop schedule --------------------------------------------------------------
  const order = schedule();
  const maxInFlight = Math.max(200, rate);
  let issued = 0;
  let inFlight = 0;
  let backlogSkips = 0;
  const pending = new Set();
  const started = performance.now();
  const writers = [rotator(), toggler()];
  let lastTick = 0;

  await new Promise((resolve) => {
    const timer = setInterval(() => {
      const elapsedS = (performance.now() - started) / 1000;
      if (elapsedS >= durationS) {
        clearInterval(timer);
        resolve();
        return;
      }
      if (Math.floor(elapsedS) > lastTick) {
        lastTick = Math.floor(elapsedS);
        onTick(lastTick);
      }
      const due = Math.floor(rate * elapsedS) - issued;
      for (let i = 0; i < due; i++) {
        issued += 1;
        if (inFlight >= maxInFlight) {
          backlogSkips += 1;
          continue;
        }
        inFlight += 1;
        const job = senders[order[issued % order.length]]().finally(() => {
          inFlight -= 1;
          pending.delete(job);
        });
        pending.add(job);
      }
    }, 5);
  });

  stopping = true;
  await Promise.allSettled([...pending, ...writers]);
  agent.destroy();

  // ---- the final state ------------------------------------------------------------------
  const record = fileRecord();
  if (record.access_token !== writes.lastToken) writes.lost.push('the file does not hold the last acknowledged token');
  if (writes.lastCompleted !== null && record.first_setup_completed !== writes.lastCompleted) {
    writes.lost.push(
      `the file holds first_setup_completed ${record.first_setup_completed}, the last acknowledged write set ${writes.lastCompleted}`,
    );
  }
  const finalAgent = new Agent({ keepAlive: false });
  const verify = await new Promise((resolve, reject) => {
    const body = Buffer.from(JSON.stringify({ token: writes.lastToken }));
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        method: 'POST',
        path: `${PREFIX}/auth/verify`,
        agent: finalAgent,
        headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-forwarded-for': '192.0.2.1' },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve(JSON.parse(text)));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  if (verify.valid !== true) writes.lost.push('the last acknowledged token does not verify');
  if (writes.lastCompleted !== null && verify.is_first_setup !== !writes.lastCompleted)
    writes.lost.push('the server reports another first-setup state than the last acknowledged write');

  return { tally, writes, issued, backlogSkips, seconds: (performance.now() - started) / 1000 };
}
