import type { BanPolicyOptions } from '@webui/core';
import type { WebuiSettings } from '../config/settings.js';
import { toCidr } from './http-policy.js';

const DAY_MS = 24 * 60 * 60_000;

/** The core's ban rules as the settings shape them: exempt networks, the session lifetime, the global budget. */
export function banPolicyFrom(settings: WebuiSettings): Partial<BanPolicyOptions> {
  return {
    exempt: settings.banExempt.map(toCidr),
    sessionLifetimeMs: settings.sessionExpireDays * DAY_MS,
    globalFailureBudget: settings.globalFailureBudget,
  };
}
