import { parseIp, type IpAddress } from './ip-address.js';

/** A network such as 10.0.0.0/8 or fd00::/8; a bare address is a network of one. */
export interface Cidr {
  network: IpAddress;
  prefixLength: number;
}

export function parseCidr(text: string): Cidr | null {
  const [address, prefix, ...rest] = text.trim().split('/');
  if (rest.length > 0 || address === undefined) return null;
  const network = parseIp(address);
  if (!network) return null;
  const maxLength = network.bytes.length * 8;
  if (prefix === undefined) return { network, prefixLength: maxLength };
  if (!/^\d{1,3}$/.test(prefix)) return null;
  let prefixLength = Number(prefix);
  // An IPv4-mapped network written in IPv6 form keeps its meaning after normalisation to IPv4.
  if (network.version === 4 && address.includes(':')) prefixLength -= 96;
  if (prefixLength < 0 || prefixLength > maxLength) return null;
  return { network, prefixLength };
}

export function cidrContains(cidr: Cidr, ip: IpAddress): boolean {
  if (cidr.network.version !== ip.version) return false;
  let remaining = cidr.prefixLength;
  for (let i = 0; remaining > 0; i++, remaining -= 8) {
    const mask = remaining >= 8 ? 0xff : (0xff << (8 - remaining)) & 0xff;
    if (((cidr.network.bytes[i] as number) & mask) !== ((ip.bytes[i] as number) & mask)) return false;
  }
  return true;
}

export function anyCidrContains(cidrs: readonly Cidr[], ip: IpAddress): boolean {
  return cidrs.some((cidr) => cidrContains(cidr, ip));
}
