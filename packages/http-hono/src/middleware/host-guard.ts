import { isLoopbackIp, parseIp } from '@webui/core';
import type { Context } from 'hono';
import type { HttpPolicy, WebuiEnv } from '../app-env.js';
import { errorBody } from '../error-body.js';
import { requestHeader } from '../request-header.js';

/** DESIGN D9 DNS-rebinding rule: while bound to loopback only, the Host must name loopback or be listed; the 403 or undefined. */
export function hostRefusal(c: Context<WebuiEnv>, policy: HttpPolicy): Response | undefined {
  if (!policy.loopbackOnly) return undefined;
  const host = requestHeader(c, 'host') ?? '';
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
  return ip !== null && isLoopbackIp(ip);
}

function isListed(host: string, allowedHosts: readonly string[]): boolean {
  const full = host.trim().toLowerCase();
  const name = hostname(host);
  return allowedHosts.some((allowed) => {
    const entry = allowed.toLowerCase();
    return entry === full || entry === name;
  });
}
