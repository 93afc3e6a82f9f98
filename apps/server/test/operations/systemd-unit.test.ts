import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupServers, makeTempDir } from '../harness/processes/server-process.js';

afterAll(cleanupServers);

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const INSTALL = join(ROOT, 'deploy/install.sh');
const SHIPPED = readFileSync(join(ROOT, 'deploy/webui.service'), 'utf8');

/** The unit as deploy/install.sh would install it for this checkout and this machine's node. */
const rendered = () => execFileSync(INSTALL, ['--print-unit'], { encoding: 'utf8' });

/** Every `Key=value` of the unit, in order (a key may repeat). */
const directives = (unit: string) =>
  unit
    .split('\n')
    .filter((line) => /^[A-Za-z]+=/.test(line))
    .map((line) => line.trim());

describe('deploy/webui.service', () => {
  it('passes systemd-analyze verify without a warning, as installed for this checkout', () => {
    const dir = makeTempDir('webui-unit-');
    const unit = join(dir, 'webui.service');
    writeFileSync(unit, rendered());
    const verified = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
    // verify exits 0 on a directive it could not parse and only says so: its silence is the pass.
    expect({ status: verified.status, stderr: verified.stderr, stdout: verified.stdout }).toEqual({ status: 0, stderr: '', stdout: '' });
  });

  it('fails verify on a mistake, so the test above can fail', () => {
    const dir = makeTempDir('webui-unit-');
    const unit = join(dir, 'webui.service');
    writeFileSync(unit, rendered().replace('ProtectSystem=strict', 'ProtectSystem=stricter'));
    expect(spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' }).stderr).toMatch(/protect system value/i);
  });

  it('runs the built server from this checkout as a dedicated user, restarting it on failure', () => {
    const unit = directives(rendered());
    expect(unit).toEqual(
      expect.arrayContaining([
        'User=webui',
        'Group=webui',
        `WorkingDirectory=${ROOT.replace(/\/$/, '')}`,
        `ExecStart=${process.execPath} ${join(ROOT, 'apps/server/dist/main.js')} serve`,
        'Restart=on-failure',
        'KillSignal=SIGTERM',
        'Environment=WEBUI_DATA_DIR=/var/lib/webui',
        'Environment=WEBUI_CONFIG=/etc/webui/bot_config.toml',
      ]),
    );
  });

  it('is hardened: no new privileges, a read-only system but for the data directory, a private /tmp, no capabilities', () => {
    const unit = directives(SHIPPED);
    expect(unit).toEqual(
      expect.arrayContaining([
        'NoNewPrivileges=yes',
        'ProtectSystem=strict',
        'ProtectHome=yes',
        'PrivateTmp=yes',
        'CapabilityBoundingSet=',
        'StateDirectory=webui',
        'StateDirectoryMode=0700',
      ]),
    );
    expect(unit.filter((line) => line.startsWith('ReadWritePaths='))).toEqual(['ReadWritePaths=/var/lib/webui']);
    // The data directory the server is told is the one it may write.
    expect(unit).toContain('Environment=WEBUI_DATA_DIR=/var/lib/webui');
  });

  it('install.sh refuses an argument it does not know before it changes anything', () => {
    const run = spawnSync(INSTALL, ['--prefix=/srv'], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('deploy/install.sh: unknown argument --prefix=/srv (expected none, or --print-unit)\n');
  });
});
