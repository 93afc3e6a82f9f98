import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureSelfSigned, selfSignedNames } from './self-signed.js';
import { loadTlsPair } from './tls-pair.js';

const dir = mkdtempSync(join(tmpdir(), 'webui-tls-pair-'));
const openssl = (...args: string[]): string =>
  execFileSync('openssl', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** A CA and a leaf it signed for localhost, as files in `dir`; `name` keeps several apart. */
function issue(name: string, days = 30): { cert: string; key: string; chain: string } {
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    `${name}-ca.key`,
    '-out',
    `${name}-ca.pem`,
    '-days',
    '30',
    '-subj',
    '/CN=test CA',
  );
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    '/CN=localhost',
  );
  writeFileSync(join(dir, `${name}.ext`), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl(
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${name}-ca.pem`,
    '-CAkey',
    `${name}-ca.key`,
    '-CAcreateserial',
    '-out',
    `${name}.pem`,
    '-days',
    String(days),
    '-extfile',
    `${name}.ext`,
  );
  const chain = join(dir, `${name}-chain.pem`);
  writeFileSync(chain, readFileSync(join(dir, `${name}.pem`), 'utf8') + readFileSync(join(dir, `${name}-ca.pem`), 'utf8'));
  return { cert: join(dir, `${name}.pem`), key: join(dir, `${name}.key`), chain };
}

describe('loadTlsPair', () => {
  const good = issue('good');
  const other = issue('other');

  it('reads a chain: the leaf’s serial, names, dates and the fingerprint openssl prints', async () => {
    const pair = await loadTlsPair({ cert: good.chain, key: good.key }, Date.now());
    // OpenSSL 1 says SHA256, 3 says sha256: the value is the form the banner shows.
    expect(openssl('x509', '-in', good.cert, '-noout', '-fingerprint', '-sha256').trim().split('=')[1]).toBe(pair.fingerprint256);
    expect(`serial=${pair.serial}`).toBe(openssl('x509', '-in', good.cert, '-noout', '-serial').trim());
    expect(pair.names).toEqual(['localhost', '127.0.0.1']);
    expect(pair.cert).toContain('BEGIN CERTIFICATE');
    expect(pair.notAfter.getTime()).toBeGreaterThan(Date.now());
  });

  it('names the file and the fault: missing, not PEM, a key of another certificate, expired', async () => {
    const now = Date.now();
    await expect(loadTlsPair({ cert: join(dir, 'absent.pem'), key: good.key }, now)).rejects.toThrow(
      `${join(dir, 'absent.pem')}: the certificate file does not exist`,
    );
    writeFileSync(join(dir, 'junk.pem'), 'not a certificate\n');
    await expect(loadTlsPair({ cert: join(dir, 'junk.pem'), key: good.key }, now)).rejects.toThrow(
      `${join(dir, 'junk.pem')}: not a PEM certificate`,
    );
    await expect(loadTlsPair({ cert: good.cert, key: join(dir, 'junk.pem') }, now)).rejects.toThrow(
      `${join(dir, 'junk.pem')}: not a PEM key`,
    );
    await expect(loadTlsPair({ cert: good.cert, key: other.key }, now)).rejects.toThrow(
      `${other.key}: the key does not match the certificate in ${good.cert}`,
    );
    await expect(loadTlsPair(good, now + 40 * 86_400_000)).rejects.toThrow(`${good.cert}: the certificate expired on`);
  });

  it('names the certificate first when both files are at fault, however long each takes to read', async () => {
    // A big file that is not PEM takes many reads; a missing key fails at once: the line is still about the certificate.
    writeFileSync(join(dir, 'big.pem'), 'x'.repeat(16 * 1024 * 1024));
    await expect(loadTlsPair({ cert: join(dir, 'big.pem'), key: join(dir, 'absent.key') }, Date.now())).rejects.toThrow(
      `${join(dir, 'big.pem')}: not a PEM certificate`,
    );
    rmSync(join(dir, 'big.pem'));
  });
});

describe('ensureSelfSigned', () => {
  it('makes a P-256 pair once (key 0600) that openssl reads, and makes it again when the names change', async () => {
    const paths = { cert: join(dir, 'self', 'cert.pem'), key: join(dir, 'self', 'key.pem') };
    const names = selfSignedNames(['127.0.0.1'], ['webui.lan:8443', '[fd00::1]'], []);
    expect(names).toEqual(['127.0.0.1', '::1', 'fd00::1', 'localhost', 'webui.lan'].sort());
    const first = await ensureSelfSigned(paths, names, Date.now());
    expect(first.made).toBe(true);
    expect(statSync(paths.key).mode & 0o777).toBe(0o600);
    const text = openssl('x509', '-in', paths.cert, '-noout', '-text');
    expect(text).toContain('ASN1 OID: prime256v1');
    expect(text).toMatch(/DNS:localhost.*DNS:webui\.lan|DNS:webui\.lan.*DNS:localhost/);
    expect(openssl('pkey', '-in', paths.key, '-pubout')).toBe(openssl('x509', '-in', paths.cert, '-noout', '-pubkey'));
    expect((first.pair.notAfter.getTime() - Date.now()) / 86_400_000).toBeCloseTo(365, 0);

    const again = await ensureSelfSigned(paths, names, Date.now());
    expect(again).toMatchObject({ made: false, pair: { fingerprint256: first.pair.fingerprint256 } });
    const renamed = await ensureSelfSigned(paths, [...names, 'other.lan'], Date.now());
    expect(renamed.made).toBe(true);
    expect(renamed.pair.names).toContain('other.lan');
    // Near its end (29 days left) it is made again.
    const late = await ensureSelfSigned(paths, [...names, 'other.lan'], Date.now() + 336 * 86_400_000);
    expect(late.made).toBe(true);
  });

  it('covers the machine’s addresses on a wildcard bind only', () => {
    const machine = [
      { address: '192.168.1.5', family: 4, internal: false },
      { address: 'fe80::1', family: 6, internal: false },
    ] as const;
    expect(selfSignedNames(['0.0.0.0'], [], machine)).toContain('192.168.1.5');
    expect(selfSignedNames(['0.0.0.0'], [], machine)).not.toContain('fe80::1');
    expect(selfSignedNames(['127.0.0.1'], [], machine)).not.toContain('192.168.1.5');
  });
});
