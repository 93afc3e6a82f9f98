// System packages the end-to-end tests drive; installed from Debian's archive when missing, never skipped.
import { spawnSync } from 'node:child_process';

/** @type {Array<{ command: string, debianPackage: string }>} */
const REQUIRED = [
  { command: 'chromium', debianPackage: 'chromium' },
  { command: 'nginx', debianPackage: 'nginx-light' },
  { command: 'caddy', debianPackage: 'caddy' },
  { command: 'fail2ban-regex', debianPackage: 'fail2ban' },
  { command: 'redis-server', debianPackage: 'redis-server' },
  // systemd-analyze verify checks deploy/webui.service.
  { command: 'systemd-analyze', debianPackage: 'systemd' },
  // The HTTPS tests make their CA with openssl, read the served serial with s_client and fetch with curl --cacert.
  { command: 'openssl', debianPackage: 'openssl' },
  { command: 'curl', debianPackage: 'curl' },
];

function has(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

export function ensureSystemPackages() {
  const missing = REQUIRED.filter((entry) => !has(entry.command));
  if (missing.length === 0) return;
  const names = missing.map((entry) => entry.debianPackage);
  console.log(`bootstrap: installing ${names.join(', ')} from Debian's packages`);
  const asRoot = process.getuid?.() === 0 ? [] : ['sudo'];
  for (const args of [
    ['apt-get', 'update'],
    ['apt-get', 'install', '-y', '--no-install-recommends', ...names],
  ]) {
    const [command, ...rest] = [...asRoot, ...args];
    const result = spawnSync(command, rest, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (result.status !== 0) {
      console.error(`bootstrap: '${args.join(' ')}' failed; install ${names.join(', ')} by hand and run the tests again`);
      process.exit(1);
    }
  }
}
