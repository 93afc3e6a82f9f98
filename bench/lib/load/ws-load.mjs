// WebSocket handshakes per second: N workers, each looping ticket -> upgrade -> ready event -> close.
import http from 'node:http';
import WebSocket from 'ws';
import { latencySummary, SampleBuffer } from '../stats.mjs';

const STEP_TIMEOUT_MS = 10_000;

/**
 * @param {{ port: number, cookie: string, connections: number, duration: number }} options
 * @returns {Promise<import('./http-load.mjs').LoadResult>}
 * `rps` is completed handshakes per second; p50/p99 are from the ticket request to the ready event.
 */
export async function runWsHandshakes({ port, cookie, connections, duration }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies = new SampleBuffer(1 << 14);
  let completed = 0;
  let non2xx = 0;
  let errors = 0;
  /** @type {string | undefined} */
  let firstError;
  const fail = (kind, message) => {
    if (kind === 'status') non2xx++;
    else errors++;
    firstError ??= message;
  };

  const started = performance.now();
  const end = started + duration * 1000;
  // At least one attempt per worker, however short the run: the preflight's 1 ms run must not end before it starts on a busy machine.
  const worker = async () => {
    do {
      const t0 = performance.now();
      try {
        const ticket = await fetchTicket(port, cookie, agent);
        await handshake(`ws://127.0.0.1:${port}/api/webui/ws?token=${encodeURIComponent(ticket)}`, () =>
          latencies.push(performance.now() - t0),
        );
        completed++;
      } catch (error) {
        fail(/** @type {{kind?: string}} */ (error).kind ?? 'error', /** @type {Error} */ (error).message);
        // A failing server must not turn the loop into a busy spin.
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } while (performance.now() < end);
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  const { p50, p99 } = latencySummary(latencies.toArray());
  return { rps: completed / seconds, p50, p99, requests: completed, non2xx, errors, seconds, ...(firstError ? { firstError } : {}) };
}

function statusError(message) {
  return Object.assign(new Error(message), { kind: 'status' });
}

/** GET /ws-token over a keep-alive connection; resolves with the ticket. */
function fetchTicket(port, cookie, agent) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/api/webui/ws-token', headers: { cookie }, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(statusError(`/ws-token answered ${res.statusCode}: ${body.slice(0, 200)}`));
        try {
          const parsed = JSON.parse(body);
          if (parsed.success !== true || typeof parsed.token !== 'string')
            return reject(statusError(`/ws-token gave no ticket: ${body.slice(0, 200)}`));
          resolve(parsed.token);
        } catch {
          reject(statusError(`/ws-token answered non-JSON: ${body.slice(0, 200)}`));
        }
      });
    });
    req.on('error', reject);
    req.setTimeout(STEP_TIMEOUT_MS, () => req.destroy(new Error('/ws-token timed out')));
  });
}

/** Opens the socket, waits for the system/ready event (calling `onReady`), closes it and waits for the close. */
function handshake(url, onReady) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    let ready = false;
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error(ready ? 'close timed out' : 'no ready event within 10 s'));
    }, STEP_TIMEOUT_MS);
    socket.once('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      res.resume();
      socket.terminate();
      reject(statusError(`upgrade refused with HTTP ${res.statusCode}`));
    });
    socket.once('message', (data) => {
      let message;
      try {
        message = JSON.parse(String(data));
      } catch {
        message = null;
      }
      if (message?.op !== 'event' || message.domain !== 'system' || message.event !== 'ready') {
        clearTimeout(timer);
        socket.terminate();
        reject(new Error(`first message was not system/ready: ${String(data).slice(0, 200)}`));
        return;
      }
      ready = true;
      onReady();
      socket.close(1000);
    });
    socket.once('close', () => {
      clearTimeout(timer);
      if (ready) resolve(undefined);
      else reject(new Error('closed before the ready event'));
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
