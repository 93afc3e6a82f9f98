import { widerThanOneSite } from '../config/network-width.js';
import type { WebuiSettings } from '../config/settings.js';
import { isLocalHost } from '../config/listen-host.js';

/** One risky setting: its lines in the startup banner and its one warning line in the log. */
export interface SettingWarning {
  bannerLines: string[];
  logFields: Record<string, unknown>;
  logMessage: string;
}

/** Settings that are valid but open more than an operator may think; each is told once at startup. */
export function settingWarnings(settings: WebuiSettings): SettingWarning[] {
  const warnings: SettingWarning[] = [];
  const wideExempt = widerThanOneSite(settings.banExempt);
  if (wideExempt.length > 0) {
    warnings.push({
      bannerLines: wideExempt.map(
        (entry) => `webui.ban_exempt ${entry} is wider than a /24 (IPv4) or /48 (IPv6): nobody there is ever banned`,
      ),
      logFields: { banExempt: wideExempt },
      logMessage: 'webui.ban_exempt covers more than a /24 (IPv4) or /48 (IPv6): nobody in it is ever banned',
    });
  }
  const wideProxies = widerThanOneSite(settings.trustedProxies);
  if (wideProxies.length > 0) {
    warnings.push({
      bannerLines: wideProxies.map(
        (entry) => `webui.trusted_proxies ${entry} is wider than a /24 (IPv4) or /48 (IPv6): anyone there can say which address they are`,
      ),
      logFields: { trustedProxies: wideProxies },
      logMessage:
        'webui.trusted_proxies covers more than a /24 (IPv4) or /48 (IPv6): anyone in it can set the X-Forwarded-For address they are ' +
        'counted under',
    });
  }
  const exposed = settings.host.filter((host) => !isLocalHost(host));
  if (exposed.length > 0 && settings.allowedHosts.length === 0) {
    warnings.push({
      bannerLines: [
        `webui.host listens beyond loopback and allowed_hosts is empty: the Host (DNS-rebinding) check is off; set webui.allowed_hosts ` +
          `(and allowed_ips), or keep the server on loopback behind a proxy`,
      ],
      logFields: { hosts: exposed },
      logMessage:
        'the Host (DNS-rebinding) check is off: webui.host listens beyond loopback and webui.allowed_hosts is empty; set allowed_hosts ' +
        '(and allowed_ips), or keep the server on loopback behind a proxy',
    });
  }
  return warnings;
}
