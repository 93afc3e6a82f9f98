import { parseIp } from '@webui/core';

const label = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const hostNamePattern = new RegExp(`^${label}(?:\\.${label})*\\.?$`, 'i');

/** A DNS name such as localhost or example.org: letters, digits, dots and hyphens. */
export function isHostName(text: string): boolean {
  if (text.length > 253) return false;
  // Dotted digits that are not a valid IPv4 address are a typo, not a name.
  if (/^[\d.]+$/.test(text)) return parseIp(text) !== null;
  return hostNamePattern.test(text);
}
