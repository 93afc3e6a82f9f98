import { parseIp } from '@webui/core';
import { isHostName } from './host-name.js';

/** A Host header value to accept: a name or IPv4 address, or a bracketed IPv6 address, each with an optional port. */
export function isAllowedHost(text: string): boolean {
  const match = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(text);
  if (!match) return false;
  const [, host = '', port] = match;
  if (port !== undefined && Number(port) > 65535) return false;
  return host.startsWith('[') ? parseIp(host)?.version === 6 : isHostName(host);
}
