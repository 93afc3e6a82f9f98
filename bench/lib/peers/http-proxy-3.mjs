#!/usr/bin/env node
// http-proxy-3 (the maintained rewrite of node-http-proxy) on node:http, with a keep-alive Agent to the upstream and
// the X-Forwarded-* headers an operator would turn on.
import http from 'node:http';
import { createProxyServer } from 'http-proxy-3';
import { exitOnSigterm, peerOptions } from './peer-options.mjs';

const { port, upstream } = peerOptions();
const proxy = createProxyServer({ target: upstream, agent: new http.Agent({ keepAlive: true }), xfwd: true });
proxy.on('error', (_error, _req, res) => {
  if (res instanceof http.ServerResponse && !res.headersSent) res.writeHead(502).end();
  else res.destroy();
});
const server = http.createServer((req, res) => proxy.web(req, res));
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1');
exitOnSigterm();
