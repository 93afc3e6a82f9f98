import { cidrContains, parseCidr, type Cidr } from '../../net/cidr.js';
import { parseIp } from '../../net/ip-address.js';

/** What an operator asks to lift: every key, the keys inside a network (an address is a network of one), or one exact key. */
export type BanTarget = { kind: 'all' } | { kind: 'network'; cidr: Cidr } | { kind: 'key'; key: string };

const IPV6_CLIENT_PREFIX = 64;

/** `all`, an address, a CIDR, or a key as listed (an IPv6 /64 is a CIDR too); null for an empty or spaced text. */
export function parseBanTarget(text: string): BanTarget | null {
  const trimmed = text.trim();
  if (trimmed === '' || /\s/.test(trimmed)) return null;
  if (trimmed.toLowerCase() === 'all') return { kind: 'all' };
  const cidr = parseCidr(trimmed);
  if (cidr) return { kind: 'network', cidr };
  // Text shaped like an address or a network that does not parse (10.0.0.0/33, 300.1.2.3) is a typo, not a key.
  return /^[\d.]+(\/\d*)?$|^[\da-f]*:[\da-f:.]*(\/\d*)?$/i.test(trimmed) ? null : { kind: 'key', key: trimmed };
}

/** Whether a client key (an IPv4 address, an IPv6 /64, or another peer name) falls under the target. */
export function banTargetMatches(target: BanTarget, key: string): boolean {
  if (target.kind === 'all') return true;
  if (target.kind === 'key') return target.key === key;
  const keyNetwork = parseCidr(key);
  if (!keyNetwork) return false;
  if (keyNetwork.network.version === 4) return cidrContains(target.cidr, keyNetwork.network);
  // An IPv6 key is a /64: a wider target must hold it, a narrower one must lie inside it.
  if (target.cidr.prefixLength <= IPV6_CLIENT_PREFIX) return cidrContains(target.cidr, keyNetwork.network);
  return cidrContains({ network: keyNetwork.network, prefixLength: IPV6_CLIENT_PREFIX }, target.cidr.network);
}

/** Whether an address string parses and lies in one of the networks. */
export function addressIn(networks: readonly Cidr[], address: string): boolean {
  if (networks.length === 0) return false;
  const ip = parseIp(address);
  return ip !== null && networks.some((cidr) => cidrContains(cidr, ip));
}
