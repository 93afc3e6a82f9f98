#!/usr/bin/env node
// node health-probe.mjs <port>: GET /api/webui/health on a fresh connection, again 10 ms after each answer, until "stop"
// on stdin; then prints {"worstMs":N,"checks":N,"failed":N} (failed: no answer or not 200). A process of its own, so
// that what it measures is the server's answer and not the event loop of the process that drives the attack.
import { request } from 'node:http';

const port = Number(process.argv[2]);
let running = true;
let worstMs = 0;
let checks = 0;
let failed = 0;

function health() {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/api/webui/health', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ok: res.statusCode === 200, ms: performance.now() - started }));
    });
    req.setTimeout(60_000, () => req.destroy());
    req.on('error', () => resolve({ ok: false, ms: performance.now() - started }));
    req.end();
  });
}

const probing = (async () => {
  while (running) {
    const answer = await health();
    checks++;
    if (!answer.ok) failed++;
    worstMs = Math.max(worstMs, answer.ms);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
})();

process.stdout.write('{"probing":true}\n');
process.stdin.setEncoding('utf8').on('data', async (text) => {
  if (!text.includes('stop')) return;
  running = false;
  await probing;
  process.stdout.write(`${JSON.stringify({ worstMs: Math.round(worstMs * 10) / 10, checks, failed })}\n`);
  process.exit(0);
});
