#!/usr/bin/env node
// fastify with @fastify/http-proxy (its reply-from on an undici pool) in front of the upstream, as its README sets it
// up: every path proxied, no logger. The gateway comparison's target: this server at least as fast.
import proxy from '@fastify/http-proxy';
import Fastify from 'fastify';
import { exitOnSigterm, peerOptions } from './peer-options.mjs';

const { port, upstream } = peerOptions();
const app = Fastify({ logger: false, keepAliveTimeout: 60_000 });
await app.register(proxy, { upstream });
await app.listen({ port, host: '127.0.0.1' });
exitOnSigterm();
