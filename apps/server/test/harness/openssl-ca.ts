import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A test CA made by openssl in `dir`, which signs P-256 leaves for localhost and 127.0.0.1. */
export interface OpensslCa {
  /** The CA certificate's path: what `curl --cacert` and Node's `ca` trust. */
  caPath: string;
  /** Makes `<name>.crt` and `<name>.key` (PKCS#8), the leaf with this serial, valid `days` days from now. */
  leaf(name: string, serial: number, days?: number): { cert: string; key: string };
}

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });

export function makeOpensslCa(dir: string): OpensslCa {
  const caKey = join(dir, 'ca.key');
  const caPath = join(dir, 'ca.crt');
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    caKey,
    '-out',
    caPath,
    '-days',
    '30',
    '-subj',
    '/CN=WebUI test CA',
  ]);
  const extensions = join(dir, 'leaf.ext');
  writeFileSync(extensions, 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth\n');
  return {
    caPath,
    leaf(name, serial, days = 30) {
      const key = join(dir, `${name}.key`);
      const cert = join(dir, `${name}.crt`);
      const request = join(dir, `${name}.csr`);
      openssl(dir, [
        'req',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        key,
        '-out',
        request,
        '-subj',
        '/CN=localhost',
      ]);
      openssl(dir, [
        'x509',
        '-req',
        '-in',
        request,
        '-CA',
        caPath,
        '-CAkey',
        caKey,
        '-set_serial',
        String(serial),
        '-days',
        String(days),
        '-extfile',
        extensions,
        '-out',
        cert,
      ]);
      return { cert, key };
    },
  };
}

/** The serial of the certificate a new TLS handshake with 127.0.0.1:`port` is given, as `openssl s_client` reads it (hex). */
export function servedSerial(port: number, caPath: string): string {
  const shown = execFileSync(
    'openssl',
    ['s_client', '-connect', `127.0.0.1:${port}`, '-servername', 'localhost', '-CAfile', caPath, '-verify_return_error'],
    {
      input: '',
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: 10_000,
    },
  );
  const printed = execFileSync('openssl', ['x509', '-noout', '-serial'], { input: shown });
  return String(printed)
    .trim()
    .replace(/^serial=/, '');
}
