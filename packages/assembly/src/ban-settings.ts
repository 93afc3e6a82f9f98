import type { BanPolicyOptions } from '@webui/core';
import type { WebuiSettings } from './config/settings.js';
import { toCidr } from './http-policy.js';

const DAY_MS = 24 * 60 * 60_000;
// Wider than one site's LAN: an exemption this broad shelters other people's addresses too.
const WIDEST_QUIET_PREFIX = { 4: 24, 6: 48 } as const;

/** The core's ban rules as the settings shape them: exempt networks, the session lifetime, the global budget. */
export function banPolicyFrom(settings: WebuiSettings): Partial<BanPolicyOptions> {
  return {
    exempt: settings.banExempt.map(toCidr),
    sessionLifetimeMs: settings.sessionExpireDays * DAY_MS,
    globalFailureBudget: settings.globalFailureBudget,
  };
}

/** The ban_exempt entries wider than a /24 (IPv4) or a /48 (IPv6), for a warning at startup. */
export function wideBanExemptions(settings: WebuiSettings): string[] {
  return settings.banExempt.filter((entry) => {
    const cidr = toCidr(entry);
    return cidr.prefixLength < WIDEST_QUIET_PREFIX[cidr.network.version];
  });
}
