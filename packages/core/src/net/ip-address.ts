/** An IP address as 4 or 16 bytes; IPv4-mapped IPv6 (::ffff:a.b.c.d) is normalised to IPv4 (docs/decisions/0003-client-address.md). */
export interface IpAddress {
  version: 4 | 6;
  bytes: Uint8Array;
}

export function parseIp(text: string): IpAddress | null {
  // Fast path for the common case, a bare dotted quad; anything else takes the general route below.
  if (isDigit(text.charCodeAt(0)) && isDigit(text.charCodeAt(text.length - 1))) {
    const bytes = parseIpv4Bytes(text);
    if (bytes) return { version: 4, bytes };
  }
  const trimmed = text
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/%[\w.-]+$/, '');
  if (trimmed.includes(':')) return parseIpv6(trimmed);
  const bytes = parseIpv4Bytes(trimmed);
  return bytes ? { version: 4, bytes } : null;
}

const isDigit = (code: number) => code >= 48 && code <= 57;

/** Four decimal parts of 0-255, without leading zeros: some stacks read those as octal, so they are refused. */
function parseIpv4Bytes(text: string): Uint8Array | null {
  const bytes = new Uint8Array(4);
  let part = 0;
  let value = 0;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 46) {
      if (digits === 0 || part === 3) return null;
      bytes[part++] = value;
      value = 0;
      digits = 0;
      continue;
    }
    // Not a digit, a fourth digit, or a digit after a leading zero.
    if (!isDigit(code) || digits === 3 || (digits > 0 && value === 0)) return null;
    value = value * 10 + (code - 48);
    digits++;
    if (value > 255) return null;
  }
  if (part !== 3 || digits === 0) return null;
  bytes[3] = value;
  return bytes;
}

function parseIpv6(text: string): IpAddress | null {
  let head = text;
  let tailV4: Uint8Array | null = null;
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tailV4 = parseIpv4Bytes(text.slice(lastColon + 1));
    if (!tailV4) return null;
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const parseGroups = (part: string): number[] | null => {
    if (part === '') return [];
    const groups = part.split(':');
    const values: number[] = [];
    for (const group of groups) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
      values.push(parseInt(group, 16));
    }
    return values;
  };
  const left = parseGroups(halves[0] as string);
  const right = halves.length === 2 ? parseGroups(halves[1] as string) : [];
  if (!left || !right) return null;
  const missing = 8 - left.length - right.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...left, ...new Array<number>(missing).fill(0), ...right];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  });
  if (tailV4) bytes.set(tailV4, 12);
  const isV4Mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return isV4Mapped ? { version: 4, bytes: bytes.slice(12) } : { version: 6, bytes };
}

export function formatIp(ip: IpAddress): string {
  const b = ip.bytes;
  if (ip.version === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((ip.bytes[i] as number) << 8) | (ip.bytes[i + 1] as number)).toString(16));
  // Compress the longest run of zero groups, as RFC 5952 asks.
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  if (bestStart < 0) return groups.join(':');
  return `${groups.slice(0, bestStart).join(':')}::${groups.slice(bestStart + bestLength).join(':')}`;
}

/** The key a client is counted under: the IPv4 address, or the /64 prefix of an IPv6 address (docs/decisions/0003-client-address.md). */
export function clientKey(ip: IpAddress): string {
  if (ip.version === 4) return formatIp(ip);
  const prefix = new Uint8Array(16);
  prefix.set(ip.bytes.slice(0, 8));
  return `${formatIp({ version: 6, bytes: prefix })}/64`;
}

/** 127.0.0.0/8 or ::1: the addresses that never leave this machine. */
export function isLoopbackIp(ip: IpAddress): boolean {
  return ip.version === 4 ? ip.bytes[0] === 127 : ip.bytes.every((byte, i) => byte === (i === 15 ? 1 : 0));
}
