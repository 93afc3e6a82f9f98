import type { LoadedSettings } from '../config/settings.js';
import { loadTlsPair, TlsPairError, type TlsPair } from './tls-pair.js';
import { tlsFileKeys, type TlsSettingName, type TlsSettings } from './tls-settings.js';

/** The [webui.tls] lines of `webui config check` (the settings only; the certificate's own facts are read by describeTlsPair). */
export function describeTlsSettings(loaded: LoadedSettings): string[] {
  const { tls } = loaded.settings;
  if (tls === undefined) return [];
  const values: Record<TlsSettingName, string> = {
    tlsCert: JSON.stringify(tls.cert),
    tlsKey: JSON.stringify(tls.key),
    tlsSelfSigned: String(tls.selfSigned),
    tlsHsts: String(tls.hsts),
  };
  return (Object.keys(tlsFileKeys) as TlsSettingName[]).map(
    (name) => `webui.${tlsFileKeys[name]} = ${values[name]} (${loaded.sources[name] ?? 'default'})`,
  );
}

/** What `webui config check` says of the certificate itself: names, days left, or why it would not start (read only). */
export async function checkTlsPair(tls: TlsSettings, now: number): Promise<{ lines: string[]; error?: string }> {
  let pair: TlsPair;
  try {
    pair = await loadTlsPair(tls, now);
  } catch (error) {
    if (!(error instanceof TlsPairError)) throw error;
    if (tls.selfSigned) return { lines: [`tls: a self-signed certificate is made at the next start in ${tls.cert}`] };
    return { lines: [], error: `webui.tls: ${error.message}` };
  }
  const daysLeft = Math.floor((pair.notAfter.getTime() - now) / 86_400_000);
  const lines = [
    `tls certificate ${pair.certPath}, key ${pair.keyPath}`,
    `tls names ${pair.names.join(', ')}`,
    `tls expires ${pair.notAfter.toISOString()} (${daysLeft} day${daysLeft === 1 ? '' : 's'} left)`,
  ];
  if (tls.selfSigned) lines.push(`tls self-signed, SHA-256 ${pair.fingerprint256}`);
  return { lines };
}
