import { parseCidr, type Cidr } from '@webui/core/net';
import type { HttpPolicy } from '@webui/http-hono';
import { isLocalHost } from '../config/listen-host.js';
import type { WebuiSettings } from '../config/settings.js';

/** The HTTP layer's view of the settings; CIDRs were validated when the config was loaded. */
export function httpPolicyFrom(settings: WebuiSettings, listenOrigins: () => readonly string[]): HttpPolicy {
  return {
    serviceName: 'webui',
    mode: settings.mode,
    // Over HTTPS of its own the cookie is Secure in every mode: no answer of this server goes out in clear.
    secureCookie: settings.secureCookie || settings.tls !== undefined,
    sessionExpireDays: settings.sessionExpireDays,
    trustedProxies: settings.trustedProxies.map(toCidr),
    allowedIps: settings.allowedIps.map(toCidr),
    allowedOrigins: settings.allowedOrigins,
    allowedHosts: settings.allowedHosts,
    listenOrigins,
    loopbackOnly: settings.host.every(isLocalHost),
  };
}

export function toCidr(text: string): Cidr {
  const cidr = parseCidr(text);
  if (!cidr) throw new Error(`not an IP or CIDR: ${text}`);
  return cidr;
}

/** The origin a browser uses for a bound address; `https` when the listeners speak TLS. */
export function originOf(host: string, port: number, scheme: 'http' | 'https' = 'http'): string {
  return host.includes(':') ? `${scheme}://[${host}]:${port}` : `${scheme}://${host}:${port}`;
}
