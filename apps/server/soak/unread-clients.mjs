#!/usr/bin/env node
// node unread-clients.mjs <port> <frames> <domain> <ticket>...: one channel socket per ticket that stops reading at once
// (its TCP socket paused) and sends <frames> subscribes to <domain>/main as fast as it can. A process of its own, so that the one
// measuring the server (websocket-unread.soak.test.ts) is not slowed down by the attack it measures.
// Prints {"open":N} once every socket is open and paused; on "flood" from stdin sends, then prints {"sent":[...],"ms":N} once
// every frame is written; on "resume", reads again and prints {"closes":[...]}.
import WebSocket from 'ws';

const [port, frames, domain, ...tickets] = process.argv.slice(2);
const FRAME = JSON.stringify({ op: 'subscribe', id: 1, domain, topic: 'main' });
const FRAMES_PER_TURN = 250;

function open(ticket) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/api/webui/ws?token=${encodeURIComponent(ticket)}`);
    socket.on('error', () => undefined);
    socket.once('unexpected-response', (_req, res) => reject(new Error(`handshake refused with ${res.statusCode}`)));
    socket.closed = new Promise((done) => socket.once('close', (code, reason) => done({ code, reason: reason.toString() })));
    // Past system/ready, nothing is read again until "resume".
    socket.once('message', () => {
      socket.pause();
      resolve(socket);
    });
  });
}

async function flood(socket) {
  const count = Number(frames);
  let sent = 0;
  let written = Promise.resolve();
  while (sent < count && socket.readyState === WebSocket.OPEN) {
    for (let i = 0; i < FRAMES_PER_TURN && sent < count; i++, sent++) {
      if (sent === count - 1) written = new Promise((resolve) => socket.send(FRAME, resolve));
      else socket.send(FRAME);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  // The last frame written to the kernel, or the socket gone.
  await Promise.race([written, socket.closed]);
  return sent;
}

const sockets = await Promise.all(tickets.map(open));
process.stdout.write(`${JSON.stringify({ open: sockets.length })}\n`);
process.stdin.setEncoding('utf8').on('data', async (text) => {
  if (text.includes('flood')) {
    const started = performance.now();
    const sent = await Promise.all(sockets.map(flood));
    process.stdout.write(`${JSON.stringify({ sent, ms: Math.round(performance.now() - started) })}\n`);
  }
  if (!text.includes('resume')) return;
  for (const socket of sockets) socket.resume();
  const closes = await Promise.all(
    sockets.map((socket) =>
      Promise.race([socket.closed, new Promise((r) => setTimeout(() => r({ code: 0, reason: 'not closed' }), 40_000))]),
    ),
  );
  process.stdout.write(`${JSON.stringify({ closes })}\n`);
  process.exit(0);
});
