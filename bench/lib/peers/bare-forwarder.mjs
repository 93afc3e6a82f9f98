#!/usr/bin/env node
// The bare minimum a Node forwarder does: node:http in, node:http out through a keep-alive Agent, bodies piped both
// ways, headers passed as they are, no login, no header rules. The gateway comparison's stretch target.
import http from 'node:http';
import { exitOnSigterm, peerOptions } from './peer-options.mjs';

const { port, upstreamPort } = peerOptions();
const agent = new http.Agent({ keepAlive: true });
const server = http.createServer((req, res) => {
  const options = { host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers: req.headers, agent };
  const forward = http.request(options, (answer) => {
    res.writeHead(/** @type {number} */ (answer.statusCode), answer.headers);
    answer.pipe(res);
  });
  forward.on('error', () => res.writeHead(502).end());
  req.pipe(forward);
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');
exitOnSigterm();
