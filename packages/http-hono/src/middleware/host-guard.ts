import { parseIp } from '@webui/core';
import type { Context, MiddlewareHandler } from 'hono';
import type { HttpPolicy, WebuiEnv } from '../app-env.js';
import { errorBody } from '../error-body.js';

/** DESIGN D9 DNS-rebinding rule: while bound to loopback only, the Host must name loopback or be listed. */
export function hostGuard(policy: HttpPolicy): MiddlewareHandler<WebuiEnv> {
  return async (c, next) => {
    const refusal = hostRefusal(c, policy);
    if (refusal) return refusal;
    await next();
  };
}

/** hostGuard's answer: the 403 for a Host it refuses, undefined to go on. */
export function hostRefusal(c: Context<WebuiEnv>, policy: HttpPolicy): Response | undefined {
  if (!policy.loopbackOnly) return undefined;
  const host = c.req.header('host') ?? '';
  if (isLoopbackHost(host) || isListed(host, policy.allowedHosts)) return undefined;
  return errorBody(c, 403, 'host_not_allowed', 'This Host is not served; add it to webui.allowed_hosts if a proxy forwards it.');
}

function hostname(host: string): string {
  const trimmed = host.trim().toLowerCase();
  if (trimmed.startsWith('[')) return trimmed.slice(0, trimmed.indexOf(']') + 1);
  const colon = trimmed.lastIndexOf(':');
  return colon >= 0 && !trimmed.slice(0, colon).includes(':') ? trimmed.slice(0, colon) : trimmed;
}

function isLoopbackHost(host: string): boolean {
  const name = hostname(host);
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const ip = parseIp(name);
  if (!ip) return false;
  return ip.version === 4 ? ip.bytes[0] === 127 : ip.bytes.every((b, i) => b === (i === 15 ? 1 : 0));
}

function isListed(host: string, allowedHosts: readonly string[]): boolean {
  const full = host.trim().toLowerCase();
  const name = hostname(host);
  return allowedHosts.some((allowed) => {
    const entry = allowed.toLowerCase();
    return entry === full || entry === name;
  });
}
