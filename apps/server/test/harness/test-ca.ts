import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A certificate and its key as files, with the serial openssl gave it (hex, upper case). */
export interface Issued {
  cert: string;
  key: string;
  serial: string;
}

/**
 * A certificate authority made with `openssl` in `dir`: `ca.pem` is what a client trusts, each leaf is for localhost,
 * 127.0.0.1 and ::1 (P-256), signed by `openssl ca` so its dates can be set, its serials counting up from 1000.
 */
export class TestCa {
  readonly caCert: string;
  private count = 0;

  private constructor(readonly dir: string) {
    this.caCert = join(dir, 'ca.pem');
  }

  static async create(dir: string): Promise<TestCa> {
    const ca = new TestCa(dir);
    writeFileSync(
      join(dir, 'ca.cnf'),
      '[ca]\ndefault_ca = local\n[local]\ndatabase = index.txt\nnew_certs_dir = .\nserial = serial\ndefault_md = sha256\n' +
        'policy = any\nunique_subject = no\nx509_extensions = leaf\n[any]\ncommonName = supplied\n' +
        '[leaf]\nsubjectAltName = DNS:localhost,IP:127.0.0.1,IP:::1\nbasicConstraints = CA:FALSE\n',
    );
    writeFileSync(join(dir, 'index.txt'), '');
    writeFileSync(join(dir, 'serial'), '1000\n');
    await ca.openssl('req', '-x509', ...P256, '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '30', '-subj', '/CN=WebUI test CA');
    return ca;
  }

  /** A new leaf; `expired` dates it in 2020. */
  async issue(options: { expired?: boolean } = {}): Promise<Issued> {
    const name = `leaf${++this.count}`;
    await this.openssl('req', ...P256, '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', '/CN=localhost');
    const dates = options.expired ? ['-startdate', '20200101000000Z', '-enddate', '20200201000000Z'] : ['-days', '20'];
    await this.openssl(
      'ca',
      '-config',
      'ca.cnf',
      '-batch',
      '-notext',
      '-cert',
      'ca.pem',
      '-keyfile',
      'ca.key',
      '-in',
      `${name}.csr`,
      '-out',
      `${name}.pem`,
      ...dates,
    );
    const { stdout } = await this.openssl('x509', '-in', `${name}.pem`, '-noout', '-serial');
    return { cert: join(this.dir, `${name}.pem`), key: join(this.dir, `${name}.key`), serial: stdout.trim().replace(/^serial=/, '') };
  }

  /** Copies a pair to the paths a server reads, the key first (as certbot's renewal leaves them, both replaced). */
  static place(issued: Issued, to: { cert: string; key: string }): void {
    writeFileSync(to.key, readFileSync(issued.key));
    writeFileSync(to.cert, readFileSync(issued.cert));
  }

  private openssl(...args: string[]) {
    return run('openssl', args, { cwd: this.dir });
  }
}

const P256 = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];

/** The serial of the certificate a TLS server at 127.0.0.1:`port` presents now, read with `openssl s_client`, which gives up after 10 s. */
export async function servedSerial(port: number): Promise<string> {
  const { stdout } = await run('sh', [
    '-c',
    `timeout 10 openssl s_client -connect 127.0.0.1:${port} -servername localhost </dev/null 2>/dev/null | openssl x509 -noout -serial`,
  ]);
  return stdout.trim().replace(/^serial=/, '');
}
