import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { formatIp, parseIp } from '@webui/core/net';
import { splitHost } from '@webui/http-hono';
import type { MachineAddress } from '../startup/system-ports.js';
import { loadTlsPair, TlsPairError, type TlsPair } from './tls-pair.js';
import { loadX509 } from './x509.js';

const DAY_MS = 86_400_000;
/** How long a made certificate is valid. */
export const SELF_SIGNED_DAYS = 365;
/** A made certificate with fewer days left than this is made again. */
export const REMAKE_DAYS_LEFT = 30;

// ECDSA P-256: every runtime's TLS stack and every browser take it (Chromium refuses Ed25519 certificates).
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/**
 * The names a self-signed certificate covers: localhost and loopback, every allowed_hosts name (without its port), and on a
 * wildcard bind (0.0.0.0, ::) the machine's own addresses. Sorted, so a change of names is a change of this list.
 */
export function selfSignedNames(hosts: readonly string[], allowedHosts: readonly string[], machine: readonly MachineAddress[]): string[] {
  const names = new Set(['localhost', '127.0.0.1', '::1']);
  for (const entry of allowedHosts) names.add(normalName(splitHost(entry).name));
  const wildcard = hosts.some((host) => parseIp(host)?.bytes.every((byte) => byte === 0) === true);
  if (wildcard) for (const { address } of machine) if (!/^fe[89ab]/i.test(address)) names.add(normalName(address));
  return [...names].sort();
}

// IPv6 in brackets or in another spelling is still the one address the certificate names.
function normalName(name: string): string {
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  const ip = parseIp(bare);
  return ip === null ? bare.toLowerCase() : formatIp(ip);
}

const sameNames = (some: readonly string[], others: readonly string[]): boolean =>
  some.map(normalName).sort().join(',') === others.map(normalName).sort().join(',');

/**
 * The self-signed pair in `paths`: reused while it is valid for REMAKE_DAYS_LEFT more days and covers exactly `names`, made
 * again otherwise. The key is written 0600, each file by a rename so a reader never sees half of one.
 */
export async function ensureSelfSigned(
  paths: { cert: string; key: string },
  names: readonly string[],
  now: number,
): Promise<{ pair: TlsPair; made: boolean }> {
  try {
    const pair = await loadTlsPair(paths, now);
    if (sameNames(pair.names, names) && pair.notAfter.getTime() - now > REMAKE_DAYS_LEFT * DAY_MS) return { pair, made: false };
  } catch (error) {
    // Missing, expired or damaged: made again below.
    if (!(error instanceof TlsPairError)) throw error;
  }
  const { cert, key } = await makeSelfSigned(names, now);
  await mkdir(dirname(paths.key), { recursive: true, mode: 0o700 });
  await writeAtomically(paths.key, key, 0o600);
  await writeAtomically(paths.cert, cert, 0o644);
  return { pair: await loadTlsPair(paths, now), made: true };
}

/** A P-256 key and a certificate naming `names` for SELF_SIGNED_DAYS, as PEM. */
export async function makeSelfSigned(names: readonly string[], now: number): Promise<{ cert: string; key: string }> {
  const x509 = await loadX509();
  const keys = await crypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const serial = crypto.getRandomValues(new Uint8Array(16));
  // Positive, as DER integers for serials must be.
  serial[0] = (serial[0] as number) & 0x7f;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Array.from(serial, (byte) => byte.toString(16).padStart(2, '0')).join(''),
    name: 'CN=WebUI self-signed',
    // A minute back, for a client whose clock is a little behind.
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + SELF_SIGNED_DAYS * DAY_MS),
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(
        names.map((name) => ({ type: parseIp(name) === null ? ('dns' as const) : ('ip' as const), value: name })),
      ),
    ],
  });
  const pkcs8 = await crypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { cert: certificate.toString('pem') + '\n', key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') + '\n' };
}

async function writeAtomically(path: string, text: string, mode: number): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode });
  // The mode given to writeFile passes through the umask; the key must be 0600 whatever it is.
  await chmod(temporary, mode);
  await rename(temporary, path);
}
