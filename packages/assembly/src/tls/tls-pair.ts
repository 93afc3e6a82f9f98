import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { errorCode } from '@webui/core/adapter';
import { loadX509 } from './x509.js';

/** A PEM pair as the runtimes' TLS stacks take it, with the facts of its leaf certificate. */
export interface TlsPair {
  /** PEM text as read: the leaf first, then any chain. */
  cert: string;
  /** PEM text of the private key. */
  key: string;
  certPath: string;
  keyPath: string;
  /** Hex, upper case, as `openssl x509 -serial` prints it. */
  serial: string;
  /** SHA-256 of the leaf's DER in the colon form `openssl x509 -fingerprint -sha256` prints. */
  fingerprint256: string;
  /** The leaf's subjectAltName DNS names and IP addresses. */
  names: string[];
  notBefore: Date;
  notAfter: Date;
}

/** Why a pair cannot be served, in one line naming the file. */
export class TlsPairError extends Error {
  override name = 'TlsPairError';
}

/** Reads and checks a pair: both files readable PEM, the key the certificate's, the certificate valid at `now`. */
export async function loadTlsPair(paths: { cert: string; key: string }, now: number): Promise<TlsPair> {
  // The certificate's problem first when both have one: the same line every time, whichever read ends first.
  const cert = await readPem(paths.cert, 'certificate');
  const key = await readPem(paths.key, 'key');
  const x509 = await loadX509();
  let leaf: InstanceType<typeof x509.X509Certificate>;
  try {
    // The first CERTIFICATE block is the leaf; the chain after it is the TLS stack's to send.
    const first = x509.PemConverter.decodeWithHeaders(cert).find((block) => block.type === 'CERTIFICATE');
    if (first === undefined) throw new Error('no certificate');
    leaf = new x509.X509Certificate(first.rawData);
  } catch {
    throw new TlsPairError(`${paths.cert}: not a PEM certificate (expected -----BEGIN CERTIFICATE-----)`);
  }
  let keySpki: Buffer;
  try {
    keySpki = createPublicKey(createPrivateKey(key)).export({ type: 'spki', format: 'der' });
  } catch {
    throw new TlsPairError(`${paths.key}: not a PEM private key (unencrypted PKCS#8, PKCS#1 or SEC1)`);
  }
  if (!keySpki.equals(Buffer.from(leaf.publicKey.rawData))) {
    throw new TlsPairError(`${paths.key}: the key does not match the certificate in ${paths.cert}`);
  }
  if (leaf.notAfter.getTime() <= now) {
    throw new TlsPairError(`${paths.cert}: the certificate expired on ${leaf.notAfter.toISOString()}`);
  }
  if (leaf.notBefore.getTime() > now) {
    throw new TlsPairError(`${paths.cert}: the certificate is not valid before ${leaf.notBefore.toISOString()}`);
  }
  const san = leaf.getExtension(x509.SubjectAlternativeNameExtension);
  const names = (san?.names.items ?? []).filter((name) => name.type === 'dns' || name.type === 'ip').map((name) => name.value);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', leaf.rawData));
  return {
    cert,
    key,
    certPath: paths.cert,
    keyPath: paths.key,
    serial: leaf.serialNumber.toUpperCase().replace(/^(?:00)+(?=.)/, ''),
    fingerprint256: colonHex(digest),
    names,
    notBefore: leaf.notBefore,
    notAfter: leaf.notAfter,
  };
}

/** Bytes as AB:CD:…, openssl's fingerprint form. */
export const colonHex = (bytes: Uint8Array): string =>
  Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0').toUpperCase()).join(':');

async function readPem(path: string, what: 'certificate' | 'key'): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') throw new TlsPairError(`${path}: the ${what} file does not exist`);
    throw new TlsPairError(`${path}: cannot read the ${what} file (${code ?? String(error)})`);
  }
  if (!text.includes('-----BEGIN ')) throw new TlsPairError(`${path}: not a PEM ${what} (no -----BEGIN line)`);
  return text;
}
