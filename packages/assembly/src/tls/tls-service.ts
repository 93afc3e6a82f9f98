import type { Logger } from 'pino';
import type { LoadedSettings } from '../config/settings.js';
import { StartupError } from '../startup/startup-error.js';
import type { MachineAddress } from '../startup/system-ports.js';
import { pollFiles, type FilePoll } from './poll-files.js';
import { ensureSelfSigned, selfSignedNames } from './self-signed.js';
import { loadTlsPair, TlsPairError, type TlsPair } from './tls-pair.js';
import type { TlsSettings } from './tls-settings.js';

/** What a reload did: the pair now served, or why the new one was refused (the old one still serves). */
export type TlsReloadOutcome = { ok: true; pair: TlsPair; changed: boolean } | { ok: false; error: string };
export type TlsReloadTrigger = 'signal' | 'file' | 'command' | 'renewal';

/** Strict-Transport-Security with `hsts = true`: a year, this host only (the server cannot know its subdomains). */
export const HSTS_VALUE = 'max-age=31536000';
/** How often the certificate and key files are looked at. */
export const TLS_POLL_MS = 2_000;
/** How often a running server asks whether its self-signed certificate is near its end (then it is made again). */
const RENEWAL_CHECK_MS = 86_400_000 / 4;

/** HTTPS for a runtime's listeners: the pair to serve, and its reloads. docs/https.md. */
export interface TlsService {
  readonly settings: TlsSettings;
  /** The pair now served. */
  current(): TlsPair;
  /** Strict-Transport-Security's value for every answer over TLS, or undefined. */
  readonly hsts: string | undefined;
  /**
   * How the runtime swaps the pair on its listeners; starts the file poll. A throw from `apply` refuses the new pair: the old
   * one stays and one error is logged naming the file.
   */
  serveReloads(apply: (pair: TlsPair) => void): void;
  /** For a runtime that cannot swap a certificate: one warning at startup saying so; nothing is polled. */
  reloadUnsupported(runtime: string): void;
  /** Reads the pair again (SIGHUP, `webui tls reload`, the poll). Never throws; a refused pair is logged once, by file. */
  reload(trigger: TlsReloadTrigger): Promise<TlsReloadOutcome>;
  close(): void;
}

export interface OpenTlsOptions {
  logger: Logger;
  machine: () => readonly MachineAddress[];
  now?: () => number;
  pollMs?: number;
}

/**
 * The configured pair, read and checked before anything listens: a missing or unreadable file, a key that is not the
 * certificate's or a certificate out of its dates is a StartupError naming the file. With self_signed, the pair in
 * `<data>/tls/` is made or made again first. Undefined without [webui.tls].
 */
export async function openTls(loaded: LoadedSettings, options: OpenTlsOptions): Promise<TlsService | undefined> {
  const { tls: settings, host, allowedHosts } = loaded.settings;
  if (settings === undefined) return undefined;
  const now = options.now ?? Date.now;
  const logger = options.logger.child({ module: 'tls' });
  const paths = { cert: settings.cert, key: settings.key };
  const read = async (): Promise<TlsPair> => {
    if (!settings.selfSigned) return loadTlsPair(paths, now());
    const { pair, made } = await ensureSelfSigned(paths, selfSignedNames(host, allowedHosts, options.machine()), now());
    if (made) logger.info({ cert: pair.certPath, names: pair.names, fingerprint: pair.fingerprint256 }, 'self-signed certificate made');
    return pair;
  };
  let current: TlsPair;
  try {
    current = await read();
  } catch (error) {
    if (error instanceof TlsPairError) throw new StartupError(`webui.tls: ${error.message}`);
    throw error;
  }
  let apply: ((pair: TlsPair) => void) | undefined;
  let poll: FilePoll | undefined;
  let renewal: ReturnType<typeof setInterval> | undefined;
  // One error per refused version of the files, however often the poll or a signal meets it.
  let lastError: string | undefined;
  const service: TlsService = {
    settings,
    current: () => current,
    hsts: settings.hsts ? HSTS_VALUE : undefined,
    serveReloads(swap) {
      apply = swap;
      poll ??= pollFiles([paths.cert, paths.key], options.pollMs ?? TLS_POLL_MS, () => service.reload('file').then(() => undefined));
      // A server up for most of a year still serves a valid certificate: ensureSelfSigned makes it again near its end.
      if (settings.selfSigned && renewal === undefined) {
        renewal = setInterval(() => void service.reload('renewal'), RENEWAL_CHECK_MS);
        (renewal as { unref?: () => void }).unref?.();
      }
    },
    reloadUnsupported(runtime) {
      logger.warn({ runtime }, `TLS reload is not supported on ${runtime}: restart the server to serve a new certificate`);
    },
    async reload(trigger) {
      let pair: TlsPair;
      try {
        pair = await read();
        if (apply === undefined) throw new TlsPairError('this runtime cannot reload a certificate: restart the server');
        if (pair.fingerprint256 !== current.fingerprint256 || pair.key !== current.key) apply(pair);
      } catch (error) {
        const message = error instanceof TlsPairError ? error.message : `${paths.cert}: refused by the TLS stack (${String(error)})`;
        if (message !== lastError || trigger === 'signal' || trigger === 'command')
          logger.error({ trigger }, `certificate not reloaded, the old one still serves: ${message}`);
        lastError = message;
        return { ok: false, error: message };
      }
      lastError = undefined;
      const changed = pair.fingerprint256 !== current.fingerprint256;
      current = pair;
      // The poll and the renewal check find nothing new most of the time: only a change is worth a line then.
      if (changed || trigger === 'signal' || trigger === 'command')
        logger.info({ trigger, serial: pair.serial, notAfter: pair.notAfter.toISOString(), changed }, 'certificate reloaded');
      return { ok: true, pair, changed };
    },
    close() {
      poll?.stop();
      clearInterval(renewal);
    },
  };
  return service;
}
