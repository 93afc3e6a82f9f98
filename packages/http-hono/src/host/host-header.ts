import { formatIp, isLoopbackIp, parseIp } from '@webui/core/net';

/** A Host header value (or a webui.allowed_hosts entry) split in two, as written after trimming and lower-casing. */
export interface HostParts {
  /** The name, an IPv4 address, or an IPv6 address in its brackets. */
  name: string;
  /** What follows the name without its ':' (digits in a well-formed Host); undefined when nothing does. */
  port: string | undefined;
}

/**
 * Splits a Host into name and port. Never fails: a malformed Host still yields a name to compare
 * (a bare IPv6 address is all name), and isWellFormedHost says whether it was well formed.
 */
export function splitHost(host: string): HostParts {
  const text = host.trim().toLowerCase();
  if (text.startsWith('[')) {
    const end = text.indexOf(']') + 1;
    const rest = text.slice(end);
    // Anything after the brackets that is not ':port' comes back as the port, so it cannot pass for one.
    return { name: text.slice(0, end), port: rest === '' ? undefined : rest.startsWith(':') ? rest.slice(1) : rest };
  }
  const colon = text.lastIndexOf(':');
  if (colon < 0 || text.slice(0, colon).includes(':')) return { name: text, port: undefined };
  return { name: text.slice(0, colon), port: text.slice(colon + 1) };
}

const hostLabel = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const hostNamePattern = new RegExp(`^${hostLabel}(?:\\.${hostLabel})*\\.?$`, 'i');

/** A DNS name such as localhost or example.org: letters, digits, dots and hyphens. */
export function isDnsName(text: string): boolean {
  if (text.length > 253) return false;
  // Dotted digits that are not a valid IPv4 address are a typo, not a name.
  if (/^[\d.]+$/.test(text)) return parseIp(text) !== null;
  return hostNamePattern.test(text);
}

/** A name or IPv4 address, or a bracketed IPv6 address, each with an optional port up to 65535; no blanks. */
export function isWellFormedHost(host: string): boolean {
  if (/\s/.test(host)) return false;
  const { name, port } = splitHost(host);
  if (!isPort(port)) return false;
  return name.startsWith('[') ? name.endsWith(']') && parseIp(name)?.version === 6 : isDnsName(name);
}

const isPort = (port: string | undefined): boolean => port === undefined || (/^\d{1,5}$/.test(port) && Number(port) <= 65_535);

/** Whether a name (a Host's, or a listen address) is this machine: localhost, a *.localhost name, or a loopback address. */
export function namesLoopback(name: string): boolean {
  const lower = name.toLowerCase();
  if (lower === 'localhost' || lower.endsWith('.localhost')) return true;
  const ip = parseIp(lower);
  return ip !== null && isLoopbackIp(ip);
}

/**
 * A Host that URL parsing leaves exactly as written: lower case, well formed, an address in its
 * canonical form, and a name that is neither read as an IPv4 number nor decoded as punycode.
 * One pass: Node's /auth/check fast path asks it for every request.
 */
export function isCanonicalHost(host: string): boolean {
  if (host !== host.toLowerCase() || /\s/.test(host)) return false;
  const { name, port } = splitHost(host);
  if (!isPort(port)) return false;
  const ip = parseIp(name);
  if (ip !== null) return (ip.version === 6 ? `[${formatIp(ip)}]` : formatIp(ip)) === name;
  if (!isDnsName(name)) return false;
  const labels = name.split('.');
  // URL parsing reads a name whose last label is a number as an IPv4 address (a trailing dot aside).
  const last = labels[labels.length - 1] === '' ? labels[labels.length - 2] : labels[labels.length - 1];
  return !/^(?:\d+|0x[0-9a-f]*)$/.test(last ?? '') && !labels.some((label) => label.startsWith('xn--'));
}
