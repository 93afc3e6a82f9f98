import { parseCidr, type Cidr } from '@webui/core/net';

/** A prefix length per address family. */
type PrefixLimits = Readonly<Record<4 | 6, number>>;

// Wider than one site's LAN: an entry this broad takes in other people's addresses too.
export const WIDEST_SITE_PREFIX: PrefixLimits = { 4: 24, 6: 48 };

// The widest private networks (10.0.0.0/8, fc00::/7): no operator's proxies live in a wider one.
export const WIDEST_NETWORK_PREFIX: PrefixLimits = { 4: 8, 6: 7 };

/** Whether the network is wider than the limit of its family. */
export const isWiderThan = (cidr: Cidr, limits: PrefixLimits): boolean => cidr.prefixLength < limits[cidr.network.version];

/** The entries (already validated CIDRs) wider than a /24 (IPv4) or a /48 (IPv6), for a warning at startup. */
export function widerThanOneSite(entries: readonly string[]): string[] {
  return entries.filter((entry) => {
    const cidr = parseCidr(entry);
    return cidr !== null && isWiderThan(cidr, WIDEST_SITE_PREFIX);
  });
}
