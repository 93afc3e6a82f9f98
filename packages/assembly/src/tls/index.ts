/** HTTPS without a proxy (issue 46): [webui.tls], the pair's checks, the self-signed maker, reloads. docs/https.md. */
export { checkTlsPair, describeTlsSettings } from './describe-tls.js';
export { pollFiles, type FilePoll } from './poll-files.js';
export { ensureSelfSigned, makeSelfSigned, REMAKE_DAYS_LEFT, SELF_SIGNED_DAYS, selfSignedNames } from './self-signed.js';
export { colonHex, loadTlsPair, TlsPairError, type TlsPair } from './tls-pair.js';
export {
  HSTS_VALUE,
  openTls,
  TLS_POLL_MS,
  type OpenTlsOptions,
  type TlsReloadOutcome,
  type TlsReloadTrigger,
  type TlsService,
} from './tls-service.js';
export { resolveTls, tlsFileKeys, type TlsSettingName, type TlsSettings } from './tls-settings.js';
