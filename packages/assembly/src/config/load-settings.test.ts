import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, describeSettings, loadSettings, parseConfigFlags } from './index.js';

const created: string[] = [];
afterEach(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh working directory holding the given files (paths relative to it). */
function workspace(files: Record<string, string> = {}): string {
  const cwd = mkdtempSync(join(tmpdir(), 'webui-config-'));
  created.push(cwd);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(cwd, path)), { recursive: true });
    writeFileSync(join(cwd, path), text);
  }
  return cwd;
}

const withConfig = (toml: string): string => workspace({ 'config/bot_config.toml': toml });

function load(cwd: string, options: { argv?: string[]; env?: Record<string, string> } = {}) {
  return loadSettings({ argv: options.argv ?? [], env: options.env ?? {}, cwd });
}

function errorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a ConfigError');
}

const FILE = 'config/bot_config.toml';

describe('loadSettings', () => {
  it('applies the defaults when there is no config file', () => {
    const cwd = workspace();
    const loaded = load(cwd);
    expect(loaded.settings).toEqual({
      enabled: true,
      host: ['127.0.0.1', '::1'],
      port: 8001,
      secureCookie: false,
      trustedProxies: [],
      allowedIps: [],
      secretKey: undefined,
      sessionExpireDays: 7,
      mode: 'production',
      allowedOrigins: [],
      allowedHosts: [],
      logLevel: 'info',
      logFormat: 'auto',
      banExempt: [],
      globalFailureBudget: 100,
      maxConnectionsPerClient: 512,
      auditMaxBytes: 10485760,
      auditKeep: 5,
      store: 'file',
      storePrefix: 'webui:',
      metricsPort: undefined,
    });
    expect(loaded.configFileFound).toBe(false);
    expect(loaded.configPath).toBe(join(cwd, FILE));
    expect(loaded.dataDir).toBe(join(cwd, 'data'));
    expect(new Set(Object.values(loaded.sources))).toEqual(new Set(['default']));
  });

  it('reads every key of the [webui] table', () => {
    const cwd = withConfig(`
[webui]
enabled = false
host = ["0.0.0.0", "localhost"]
port = 9000
secure_cookie = true
trusted_proxies = ["10.0.0.1", "fd00::/8"]
allowed_ips = ["192.168.0.0/16"]
secret_key = "s3cret"
session_expire = 30
mode = "development"
allowed_origins = ["http://localhost:5173"]
allowed_hosts = ["example.org:8080"]
log_level = "debug"
log_format = "json"
ban_exempt = ["192.168.1.0/24"]
global_failure_budget = 500
max_connections_per_client = 64
audit_max_bytes = 65536
audit_keep = 10
store = "redis://:pw@redis.internal:6380/2"
store_prefix = "bot-a:"
metrics_port = 9464
`);
    const loaded = load(cwd);
    expect(loaded.configFileFound).toBe(true);
    expect(loaded.settings).toEqual({
      enabled: false,
      host: ['0.0.0.0', 'localhost'],
      port: 9000,
      secureCookie: true,
      trustedProxies: ['10.0.0.1', 'fd00::/8'],
      allowedIps: ['192.168.0.0/16'],
      secretKey: 's3cret',
      sessionExpireDays: 30,
      mode: 'development',
      allowedOrigins: ['http://localhost:5173'],
      allowedHosts: ['example.org:8080'],
      logLevel: 'debug',
      logFormat: 'json',
      banExempt: ['192.168.1.0/24'],
      globalFailureBudget: 500,
      maxConnectionsPerClient: 64,
      auditMaxBytes: 65536,
      auditKeep: 10,
      store: 'redis://:pw@redis.internal:6380/2',
      storePrefix: 'bot-a:',
      metricsPort: 9464,
    });
    expect(loaded.sources.port).toBe('file');
    expect(loaded.sources.secretKey).toBe('file');
  });

  it('accepts a comma-separated string for a list, trimming entries and dropping blanks', () => {
    const cwd = withConfig('[webui]\nhost = " 127.0.0.1, ::1 ,, "\nallowed_ips = ["10.0.0.0/8", " ", " 10.1.0.0/16 "]\n');
    const { settings } = load(cwd);
    expect(settings.host).toEqual(['127.0.0.1', '::1']);
    expect(settings.allowedIps).toEqual(['10.0.0.0/8', '10.1.0.0/16']);
  });

  it("ignores the bot's other tables and top-level keys", () => {
    const cwd = withConfig('name = "bot"\n[bot]\nqq = 123\nnickname = "x"\n[model.chat]\nname = "gpt"\n[webui]\nport = 9001\n');
    expect(load(cwd).settings.port).toBe(9001);
  });

  it('lets the environment override the file', () => {
    const cwd = withConfig('[webui]\nport = 9000\nhost = "127.0.0.1"\nmode = "development"\n');
    const loaded = load(cwd, { env: { WEBUI_PORT: '9100', WEBUI_HOST: '0.0.0.0, ::' } });
    expect(loaded.settings.port).toBe(9100);
    expect(loaded.settings.host).toEqual(['0.0.0.0', '::']);
    expect(loaded.settings.mode).toBe('development');
    expect(loaded.sources).toMatchObject({ port: 'env', host: 'env', mode: 'file' });
  });

  it('takes the config file and data dir from the environment, relative to cwd', () => {
    const cwd = workspace({ 'etc/webui.toml': '[webui]\nport = 9300\n' });
    const loaded = load(cwd, { env: { WEBUI_CONFIG: 'etc/webui.toml', WEBUI_DATA_DIR: 'var/state' } });
    expect(loaded.configPath).toBe(join(cwd, 'etc/webui.toml'));
    expect(loaded.settings.port).toBe(9300);
    expect(loaded.dataDir).toBe(join(cwd, 'var/state'));
    expect(loaded.sources).toMatchObject({ configPath: 'env', dataDir: 'env' });
  });

  it('treats an empty environment variable as unset', () => {
    const loaded = load(workspace(), { env: { WEBUI_PORT: '', WEBUI_HOST: '' } });
    expect(loaded.settings.port).toBe(8001);
    expect(loaded.sources.port).toBe('default');
  });

  it('lets flags override the environment, in both --flag value and --flag=value forms', () => {
    const cwd = workspace({ 'a.toml': '[webui]\nport = 1\n', 'b.toml': '[webui]\nport = 2\nlog_level = "warn"\n' });
    const loaded = load(cwd, {
      argv: ['serve', '--port', '9200', '--host=::1', '--config=b.toml', '--data-dir', '/srv/webui'],
      env: { WEBUI_PORT: '9100', WEBUI_HOST: '0.0.0.0', WEBUI_CONFIG: 'a.toml', WEBUI_DATA_DIR: 'elsewhere' },
    });
    expect(loaded.settings.port).toBe(9200);
    expect(loaded.settings.host).toEqual(['::1']);
    expect(loaded.configPath).toBe(join(cwd, 'b.toml'));
    expect(loaded.settings.logLevel).toBe('warn');
    expect(loaded.dataDir).toBe('/srv/webui');
    expect(loaded.sources).toMatchObject({ port: 'flag', host: 'flag', configPath: 'flag', dataDir: 'flag', logLevel: 'file' });
  });

  it('records the source of every value', () => {
    const cwd = withConfig('[webui]\nmode = "development"\nport = 1000\n');
    const { sources } = load(cwd, { argv: ['--port', '2000'], env: { WEBUI_HOST: 'localhost' } });
    expect(sources).toEqual({
      enabled: 'default',
      host: 'env',
      port: 'flag',
      secureCookie: 'default',
      trustedProxies: 'default',
      allowedIps: 'default',
      secretKey: 'default',
      sessionExpireDays: 'default',
      mode: 'file',
      allowedOrigins: 'default',
      allowedHosts: 'default',
      logLevel: 'default',
      logFormat: 'default',
      banExempt: 'default',
      globalFailureBudget: 'default',
      maxConnectionsPerClient: 'default',
      auditMaxBytes: 'default',
      auditKeep: 'default',
      store: 'default',
      storePrefix: 'default',
      metricsPort: 'default',
      dataDir: 'default',
      configPath: 'default',
    });
  });

  it('refuses a config file given explicitly that does not exist', () => {
    const cwd = workspace();
    expect(errorOf(() => load(cwd, { argv: ['--config', 'nope.toml'] }))).toBe('--config: config file nope.toml does not exist');
    expect(errorOf(() => load(cwd, { env: { WEBUI_CONFIG: 'nope.toml' } }))).toBe('WEBUI_CONFIG: config file nope.toml does not exist');
  });

  it('names the file and the line of a TOML syntax error', () => {
    const cwd = withConfig('[webui]\nport = 9000\nhost = [\n');
    expect(errorOf(() => load(cwd))).toMatch(/^config\/bot_config\.toml: invalid TOML at line \d+, column \d+: /);
    const broken = withConfig('[webui]\n\nport = = 1\n');
    expect(errorOf(() => load(broken))).toMatch(/^config\/bot_config\.toml: invalid TOML at line 3, /);
  });

  it('refuses an unknown key inside [webui]', () => {
    expect(errorOf(() => load(withConfig('[webui]\nprot = 8001\n')))).toBe(`${FILE}: unknown key webui.prot`);
  });

  it.each([
    ['webui = 5', `${FILE}: webui must be a table, got 5`],
    ['[webui]\nenabled = "yes"', `${FILE}: webui.enabled must be true or false, got "yes"`],
    ['[webui]\nsecure_cookie = 1', `${FILE}: webui.secure_cookie must be true or false, got 1`],
    ['[webui]\nport = "abc"', `${FILE}: webui.port must be an integer from 0 to 65535, got "abc"`],
    ['[webui]\nport = 80.5', `${FILE}: webui.port must be an integer from 0 to 65535, got 80.5`],
    ['[webui]\nsession_expire = "7"', `${FILE}: webui.session_expire must be an integer from 1 to 365, got "7"`],
    ['[webui]\nhost = 5', `${FILE}: webui.host must be a list of strings or a comma-separated string, got 5`],
    ['[webui]\nallowed_ips = [1, 2]', `${FILE}: webui.allowed_ips must be a list of strings or a comma-separated string, got [1, 2]`],
    ['[webui]\nmode = "dev"', `${FILE}: webui.mode must be "production" or "development", got "dev"`],
    ['[webui]\nlog_level = "verbose"', `${FILE}: webui.log_level must be one of fatal, error, warn, info, debug, trace, got "verbose"`],
    ['[webui]\nsecret_key = 5', `${FILE}: webui.secret_key must be a non-empty string`],
    ['[webui]\nsecret_key = "  "', `${FILE}: webui.secret_key must be a non-empty string`],
  ])('refuses a wrong type: %s', (toml, message) => {
    expect(errorOf(() => load(withConfig(`${toml}\n`)))).toBe(message);
  });

  it('reads ban_exempt as a list or a comma-separated string, and global_failure_budget from 0 to 1000000', () => {
    const loaded = load(withConfig('[webui]\nban_exempt = "192.168.1.0/24, fd00::/48"\nglobal_failure_budget = 0\n'));
    expect(loaded.settings.banExempt).toEqual(['192.168.1.0/24', 'fd00::/48']);
    expect(loaded.settings.globalFailureBudget).toBe(0);
    expect(errorOf(() => load(withConfig('[webui]\nban_exempt = ["10.0.0.1", "10.0.0.0/33"]\n')))).toBe(
      `${FILE}: webui.ban_exempt entry "10.0.0.0/33" is not an IP address or CIDR`,
    );
    expect(errorOf(() => load(withConfig('[webui]\nglobal_failure_budget = -1\n')))).toBe(
      `${FILE}: webui.global_failure_budget must be an integer from 0 to 1000000, got -1`,
    );
    expect(errorOf(() => load(withConfig('[webui]\nmax_connections_per_client = 0\n')))).toBe(
      `${FILE}: webui.max_connections_per_client must be an integer from 1 to 1000000, got 0`,
    );
    expect(errorOf(() => load(withConfig('[webui]\nglobal_failure_budget = "100"\n')))).toBe(
      `${FILE}: webui.global_failure_budget must be an integer from 0 to 1000000, got "100"`,
    );
  });

  it('reads audit_max_bytes from 4096 to 1073741824 and audit_keep from 1 to 100, and refuses the rest', () => {
    const lowest = load(withConfig('[webui]\naudit_max_bytes = 4096\naudit_keep = 1\n'));
    expect(lowest.settings).toMatchObject({ auditMaxBytes: 4096, auditKeep: 1 });
    expect(lowest.sources).toMatchObject({ auditMaxBytes: 'file', auditKeep: 'file' });
    expect(load(withConfig('[webui]\naudit_max_bytes = 1073741824\naudit_keep = 100\n')).settings).toMatchObject({
      auditMaxBytes: 1073741824,
      auditKeep: 100,
    });
    const bytesRange = 'must be an integer from 4096 to 1073741824';
    expect(errorOf(() => load(withConfig('[webui]\naudit_max_bytes = 4095\n')))).toBe(
      `${FILE}: webui.audit_max_bytes ${bytesRange}, got 4095`,
    );
    expect(errorOf(() => load(withConfig('[webui]\naudit_max_bytes = 1073741825\n')))).toBe(
      `${FILE}: webui.audit_max_bytes ${bytesRange}, got 1073741825`,
    );
    expect(errorOf(() => load(withConfig('[webui]\naudit_max_bytes = "10M"\n')))).toBe(
      `${FILE}: webui.audit_max_bytes ${bytesRange}, got "10M"`,
    );
    expect(errorOf(() => load(withConfig('[webui]\naudit_keep = 0\n')))).toBe(
      `${FILE}: webui.audit_keep must be an integer from 1 to 100, got 0`,
    );
    expect(errorOf(() => load(withConfig('[webui]\naudit_keep = 101\n')))).toBe(
      `${FILE}: webui.audit_keep must be an integer from 1 to 100, got 101`,
    );
    expect(errorOf(() => load(withConfig('[webui]\naudit_keep = 2.5\n')))).toBe(
      `${FILE}: webui.audit_keep must be an integer from 1 to 100, got 2.5`,
    );
  });

  it('reads store from the file, WEBUI_STORE and --store (flag first), and store_prefix from the file', () => {
    const cwd = withConfig('[webui]\nstore = "redis://127.0.0.1:6379"\nstore_prefix = "team-b:"\n');
    expect(load(cwd).settings).toMatchObject({ store: 'redis://127.0.0.1:6379', storePrefix: 'team-b:' });
    const fromEnv = load(cwd, { env: { WEBUI_STORE: 'rediss://:pw@cache.example.org:6380/1' } });
    expect(fromEnv.settings.store).toBe('rediss://:pw@cache.example.org:6380/1');
    expect(fromEnv.sources.store).toBe('env');
    const fromFlag = load(cwd, { argv: ['--store', 'file'], env: { WEBUI_STORE: 'redis://127.0.0.1' } });
    expect(fromFlag.settings.store).toBe('file');
    expect(fromFlag.sources.store).toBe('flag');
    const cluster = 'rediss-cluster://:pw@10.0.0.5:7000,10.0.0.6:7000,10.0.0.7:7000';
    expect(load(withConfig(`[webui]\nstore = "${cluster}"\n`)).settings.store).toBe(cluster);
    expect(load(cwd, { argv: ['--store', 'redis-cluster://10.0.0.5:7000'] }).settings.store).toBe('redis-cluster://10.0.0.5:7000');
    expect(describeSettings(load(cwd, { env: { WEBUI_STORE: cluster } }))).toContain(
      'webui.store = "rediss-cluster://:***@10.0.0.5:7000,10.0.0.6:7000,10.0.0.7:7000" (env)',
    );
    expect(errorOf(() => load(cwd, { env: { WEBUI_STORE: 'redis-cluster://:pw-in-env@10.0.0.5:7000/2' } }))).toMatch(
      /^WEBUI_STORE: must be "file" or a Redis URL: "redis-cluster:\/\/:\*\*\*@10\.0\.0\.5:7000\/2" names a database/,
    );
  });

  it('refuses a store that is neither "file" nor a Redis URL, and a bad store_prefix, never quoting a password', () => {
    const refused = [
      errorOf(() => load(withConfig('[webui]\nstore = "http://:pw-in-file@example.org/"\n'))),
      errorOf(() => load(workspace(), { env: { WEBUI_STORE: 'redis://:pw-in-env@host:99999/0' } })),
      errorOf(() => load(workspace(), { argv: ['--store', 'redis://:pw-in-flag@host:6379/zero'] })),
    ];
    expect(refused[0]).toMatch(/^config\/bot_config\.toml: webui\.store must be "file" or a Redis URL: .*redis:\/\/ or rediss:\/\//);
    expect(refused[1]).toMatch(/^WEBUI_STORE: must be "file" or a Redis URL: "redis:\/\/\*\*\*@host:99999\/0" is not a URL/);
    expect(refused[2]).toMatch(/^--store: must be "file" or a Redis URL: .*database number/);
    for (const message of refused) expect(message).not.toMatch(/pw-in-/);
    expect(errorOf(() => load(withConfig('[webui]\nstore_prefix = "has space:"\n')))).toBe(
      `${FILE}: webui.store_prefix must be 1 to 64 visible ASCII characters without spaces, got "has space:"`,
    );
    expect(errorOf(() => load(withConfig('[webui]\nstore_prefix = ""\n')))).toMatch(/webui\.store_prefix must be 1 to 64/);
  });

  it('reads log_format from the file and WEBUI_LOG_FORMAT (the environment first), and metrics_port from 1 to 65535', () => {
    const cwd = withConfig('[webui]\nlog_format = "json"\nmetrics_port = 9464\n');
    expect(load(cwd).settings).toMatchObject({ logFormat: 'json', metricsPort: 9464 });
    const loaded = load(cwd, { env: { WEBUI_LOG_FORMAT: 'pretty' } });
    expect(loaded.settings.logFormat).toBe('pretty');
    expect(loaded.sources).toMatchObject({ logFormat: 'env', metricsPort: 'file' });
    expect(errorOf(() => load(withConfig('[webui]\nlog_format = "text"\n')))).toBe(
      `${FILE}: webui.log_format must be one of auto, pretty, json, got "text"`,
    );
    expect(errorOf(() => load(workspace(), { env: { WEBUI_LOG_FORMAT: 'yaml' } }))).toBe(
      'WEBUI_LOG_FORMAT: must be one of auto, pretty, json, got "yaml"',
    );
    expect(errorOf(() => load(withConfig('[webui]\nmetrics_port = 0\n')))).toBe(
      `${FILE}: webui.metrics_port must be an integer from 1 to 65535, got 0`,
    );
    expect(describeSettings(load(workspace()))).toEqual(
      expect.arrayContaining(['webui.log_format = "auto" (default)', 'webui.metrics_port = (not set) (default)']),
    );
    expect(describeSettings(load(cwd))).toContain('webui.metrics_port = 9464 (file)');
  });

  it('refuses an entry of trusted_proxies or allowed_ips that is not an IP or CIDR, naming the entry', () => {
    expect(errorOf(() => load(withConfig('[webui]\ntrusted_proxies = ["10.0.0.1", "10.0.0.0/33"]\n')))).toBe(
      `${FILE}: webui.trusted_proxies entry "10.0.0.0/33" is not an IP address or CIDR`,
    );
    expect(errorOf(() => load(withConfig('[webui]\nallowed_ips = "10.0.0/8"\n')))).toBe(
      `${FILE}: webui.allowed_ips entry "10.0.0/8" is not an IP address or CIDR`,
    );
  });

  it('refuses a trusted_proxies entry wider than a /8 (IPv4) or /7 (IPv6), naming the key, the file and the entry', () => {
    for (const entry of ['0.0.0.0/0', '::/0', '::ffff:0.0.0.0/96', '128.0.0.0/1', '8.0.0.0/7', '2000::/3', 'fc00::/6']) {
      expect(errorOf(() => load(withConfig(`[webui]\ntrusted_proxies = ["127.0.0.1", "${entry}"]\n`)))).toBe(
        `${FILE}: webui.trusted_proxies entry ${JSON.stringify(entry)} trusts more than any network of proxies (wider than a /8 for IPv4 ` +
          `or a /7 for IPv6): anyone in it could choose the address they are counted under`,
      );
    }
    // The widest private networks are accepted (the startup banner warns about them).
    expect(load(withConfig('[webui]\ntrusted_proxies = ["10.0.0.0/8", "fc00::/7"]\n')).settings.trustedProxies).toEqual([
      '10.0.0.0/8',
      'fc00::/7',
    ]);
    // Other network lists take any width.
    expect(load(withConfig('[webui]\nallowed_ips = ["0.0.0.0/0", "::/0"]\n')).settings.allowedIps).toEqual(['0.0.0.0/0', '::/0']);
  });

  it('accepts IPs and host names as host entries and refuses anything else', () => {
    expect(load(withConfig('[webui]\nhost = "localhost, 0.0.0.0, ::, fe80::1"\n')).settings.host).toEqual([
      'localhost',
      '0.0.0.0',
      '::',
      'fe80::1',
    ]);
    for (const bad of ['bad host!', '[::1]', '999.1.1.1', 'http://localhost']) {
      expect(errorOf(() => load(withConfig(`[webui]\nhost = ["${bad}"]\n`)))).toBe(
        `${FILE}: webui.host entry ${JSON.stringify(bad)} is not an IP address, host name or unix:/absolute/path`,
      );
    }
    expect(errorOf(() => load(withConfig('[webui]\nhost = []\n')))).toBe(`${FILE}: webui.host must list at least one address`);
  });

  it('accepts unix:/absolute/path host entries from the file, WEBUI_HOST and --host, and refuses a relative or empty path', () => {
    expect(load(withConfig('[webui]\nhost = ["unix:/run/webui/http.sock", "127.0.0.1"]\n')).settings.host).toEqual([
      'unix:/run/webui/http.sock',
      '127.0.0.1',
    ]);
    expect(load(workspace(), { env: { WEBUI_HOST: 'unix:/tmp/a.sock' } }).settings.host).toEqual(['unix:/tmp/a.sock']);
    expect(load(workspace(), { argv: ['--host', 'unix:/tmp/b.sock,::1'] }).settings.host).toEqual(['unix:/tmp/b.sock', '::1']);
    for (const bad of ['unix:', 'unix:run/webui.sock', 'unix:./webui.sock']) {
      expect(errorOf(() => load(withConfig(`[webui]\nhost = ["${bad}"]\n`)))).toBe(
        `${FILE}: webui.host entry ${JSON.stringify(bad)} is not an IP address, host name or unix:/absolute/path`,
      );
    }
  });

  it('accepts origins without a path, normalised, and refuses the rest', () => {
    const { settings } = load(withConfig('[webui]\nallowed_origins = "http://localhost:5173, HTTPS://Example.ORG:443/"\n'));
    expect(settings.allowedOrigins).toEqual(['http://localhost:5173', 'https://example.org']);
    for (const bad of [
      'http://localhost:5173/app',
      'ftp://example.org',
      'localhost:5173',
      'http://a@example.org',
      'http://example.org?x=1',
    ]) {
      expect(errorOf(() => load(withConfig(`[webui]\nallowed_origins = ["${bad}"]\n`)))).toContain(
        `${FILE}: webui.allowed_origins entry ${JSON.stringify(bad)} is not an origin`,
      );
    }
  });

  it('accepts host names with an optional port in allowed_hosts and refuses paths', () => {
    const { settings } = load(withConfig('[webui]\nallowed_hosts = "Example.org:8080, localhost, [::1]:8001"\n'));
    expect(settings.allowedHosts).toEqual(['example.org:8080', 'localhost', '[::1]:8001']);
    for (const bad of ['example.org/path', 'example.org:99999', 'http://example.org']) {
      expect(errorOf(() => load(withConfig(`[webui]\nallowed_hosts = ["${bad}"]\n`)))).toBe(
        `${FILE}: webui.allowed_hosts entry ${JSON.stringify(bad)} is not a host name with optional :port`,
      );
    }
  });

  it('refuses a port out of range from the file, the environment and a flag', () => {
    expect(errorOf(() => load(withConfig('[webui]\nport = 65536\n')))).toBe(
      `${FILE}: webui.port must be an integer from 0 to 65535, got 65536`,
    );
    expect(errorOf(() => load(withConfig('[webui]\nport = -1\n')))).toBe(`${FILE}: webui.port must be an integer from 0 to 65535, got -1`);
    expect(errorOf(() => load(workspace(), { env: { WEBUI_PORT: 'x' } }))).toBe('WEBUI_PORT: must be an integer from 0 to 65535, got "x"');
    expect(errorOf(() => load(workspace(), { argv: ['--port', '70000'] }))).toBe('--port: must be an integer from 0 to 65535, got "70000"');
    expect(errorOf(() => load(workspace(), { argv: ['--host', 'a b'] }))).toBe(
      '--host: entry "a b" is not an IP address, host name or unix:/absolute/path',
    );
    expect(load(workspace(), { argv: ['--port=0'] }).settings.port).toBe(0);
    expect(load(withConfig('[webui]\nport = 65535\n')).settings.port).toBe(65535);
  });

  it('refuses session_expire of 0 and 366 and accepts 1 and 365', () => {
    expect(errorOf(() => load(withConfig('[webui]\nsession_expire = 0\n')))).toBe(
      `${FILE}: webui.session_expire must be an integer from 1 to 365, got 0`,
    );
    expect(errorOf(() => load(withConfig('[webui]\nsession_expire = 366\n')))).toBe(
      `${FILE}: webui.session_expire must be an integer from 1 to 365, got 366`,
    );
    expect(load(withConfig('[webui]\nsession_expire = 1\n')).settings.sessionExpireDays).toBe(1);
    expect(load(withConfig('[webui]\nsession_expire = 365\n')).settings.sessionExpireDays).toBe(365);
  });

  it('never puts the secret_key value in an error message', () => {
    const secret = 'hunter2-very-secret';
    expect(errorOf(() => load(withConfig(`[webui]\nsecret_key = ["${secret}"]\n`)))).toBe(
      `${FILE}: webui.secret_key must be a non-empty string`,
    );
    expect(errorOf(() => load(withConfig(`[webui]\nsecret_key = { value = "${secret}" }\n`)))).not.toContain(secret);
    // The TOML parser's excerpt of the broken line would show it.
    expect(errorOf(() => load(withConfig(`[webui]\nsecret_key = "${secret}\n`)))).not.toContain(secret);
  });
});

describe('parseConfigFlags', () => {
  it('takes only the configuration flags and leaves every other argument in rest', () => {
    const { flags, rest } = parseConfigFlags(['config', 'check', '--verbose', '--port', '1', '--host=a,b', '-x', '--', '--port', '2']);
    expect(flags).toEqual({ port: '1', host: 'a,b' });
    expect(rest).toEqual(['config', 'check', '--verbose', '-x', '--', '--port', '2']);
  });

  it('lets the last of a repeated flag win', () => {
    expect(parseConfigFlags(['--port', '1', '--port=2']).flags.port).toBe('2');
  });

  it('refuses a flag without its value, naming the flag', () => {
    expect(errorOf(() => parseConfigFlags(['--port']))).toBe('--port: missing value');
    expect(errorOf(() => parseConfigFlags(['--data-dir=']))).toBe('--data-dir: missing value');
    expect(errorOf(() => parseConfigFlags(['--config', '--port', '1']))).toBe('--config: missing value');
  });
});

describe('describeSettings', () => {
  it('shows each effective value with its source and hides the secret', () => {
    const cwd = withConfig('[webui]\nsecret_key = "hunter2-very-secret"\nallowed_ips = "10.0.0.0/8"\n');
    const lines = describeSettings(load(cwd, { argv: ['--port', '9000'] }));
    expect(lines).toContain('webui.port = 9000 (flag)');
    expect(lines).toContain('webui.host = ["127.0.0.1", "::1"] (default)');
    expect(lines).toContain('webui.allowed_ips = ["10.0.0.0/8"] (file)');
    expect(lines).toContain('webui.mode = "production" (default)');
    expect(lines).toContain('webui.secret_key = (set) (file)');
    expect(lines).toContain(`config = ${join(cwd, FILE)} (default, found)`);
    expect(lines).toContain(`data_dir = ${join(cwd, 'data')} (default)`);
    expect(lines.join('\n')).not.toContain('hunter2');
    expect(lines).toContain('webui.global_failure_budget = 100 (default)');
    expect(lines).toContain('webui.max_connections_per_client = 512 (default)');
    expect(lines).toContain('webui.audit_max_bytes = 10485760 (default)');
    expect(lines).toContain('webui.audit_keep = 5 (default)');
    expect(describeSettings(load(cwd, { env: { WEBUI_STORE: 'redis://:hunter3@127.0.0.1:6379/0' } }))).toContain(
      'webui.store = "redis://:***@127.0.0.1:6379/0" (env)',
    );
    expect(lines.filter((line) => line.startsWith('webui.'))).toHaveLength(21);
  });

  it('says when no secret_key is set', () => {
    expect(describeSettings(load(workspace()))).toContain('webui.secret_key = (not set) (default)');
  });
});

describe('[webui.upstream]', () => {
  const UPSTREAM_DEFAULTS = {
    paths: ['/api/webui'],
    publicPaths: ['/api/webui/version-compatibility'],
    headers: {},
    headerTemplates: {},
    timeoutSeconds: 30,
  };
  const upstreamError = (toml: string, env: Record<string, string> = {}): string =>
    errorOf(() => load(withConfig(`[webui.upstream]\nurl = "http://127.0.0.1:8002"\n${toml}\n`), { env }));

  it('is absent without a url anywhere, and nothing about it is listed', () => {
    const loaded = load(withConfig('[webui]\nport = 9000\n'));
    expect(loaded.settings.upstream).toBeUndefined();
    expect(Object.keys(loaded.sources).filter((name) => name.startsWith('upstream'))).toEqual([]);
    expect(describeSettings(loaded).join('\n')).not.toContain('upstream');
  });

  it('reads every key, expanding ${NAME} in header values from the environment', () => {
    const cwd = withConfig(`
[webui.upstream]
url = "HTTP://LocalHost:8002/"
paths = ["/api/webui", "/api/chat/", "/api/config"]
public_paths = ["/api/webui/version-compatibility", "/assets/*"]
timeout = 2.5

[webui.upstream.headers]
Cookie = "maibot_session=\${MAIBOT_TOKEN}"
X-Bot-Pair = "\${BOT_A}:\${BOT_B}"
X-Price = "$5 and \${BOT_A}"
X-Static = "plain"
`);
    const loaded = load(cwd, { env: { MAIBOT_TOKEN: 'tok-123', BOT_A: 'a', BOT_B: 'b' } });
    expect(loaded.settings.upstream).toEqual({
      url: 'http://localhost:8002',
      paths: ['/api/webui', '/api/chat', '/api/config'],
      publicPaths: ['/api/webui/version-compatibility', '/assets/*'],
      headers: { Cookie: 'maibot_session=tok-123', 'X-Bot-Pair': 'a:b', 'X-Price': '$5 and a', 'X-Static': 'plain' },
      headerTemplates: {
        Cookie: 'maibot_session=${MAIBOT_TOKEN}',
        'X-Bot-Pair': '${BOT_A}:${BOT_B}',
        'X-Price': '$5 and ${BOT_A}',
        'X-Static': 'plain',
      },
      timeoutSeconds: 2.5,
    });
    expect(loaded.sources).toMatchObject({
      upstreamUrl: 'file',
      upstreamPaths: 'file',
      upstreamPublicPaths: 'file',
      upstreamHeaders: 'file',
      upstreamTimeout: 'file',
    });
  });

  it('takes the defaults for every key but the url, and a Unix socket url', () => {
    const loaded = load(withConfig('[webui.upstream]\nurl = "unix:/run/maibot/http.sock"\n'));
    expect(loaded.settings.upstream).toEqual({
      url: 'unix:/run/maibot/http.sock',
      socketPath: '/run/maibot/http.sock',
      ...UPSTREAM_DEFAULTS,
    });
    expect(loaded.sources).toMatchObject({
      upstreamUrl: 'file',
      upstreamPaths: 'default',
      upstreamHeaders: 'default',
      upstreamTimeout: 'default',
    });
  });

  it('is enabled with the defaults by WEBUI_UPSTREAM_URL or --upstream-url alone; flag over environment over file', () => {
    const bare = workspace();
    const fromEnv = load(bare, { env: { WEBUI_UPSTREAM_URL: 'http://127.0.0.1:8002' } });
    expect(fromEnv.settings.upstream).toEqual({ url: 'http://127.0.0.1:8002', ...UPSTREAM_DEFAULTS });
    expect(fromEnv.sources.upstreamUrl).toBe('env');
    const fromFlag = load(bare, {
      argv: ['--upstream-url=https://bot.internal:8443'],
      env: { WEBUI_UPSTREAM_URL: 'http://127.0.0.1:8002' },
    });
    expect(fromFlag.settings.upstream?.url).toBe('https://bot.internal:8443');
    expect(fromFlag.sources.upstreamUrl).toBe('flag');

    const cwd = withConfig('[webui.upstream]\nurl = "http://file:1"\npaths = ["/"]\n');
    const overFile = load(cwd, { env: { WEBUI_UPSTREAM_URL: 'http://env:2' } });
    expect(overFile.settings.upstream).toMatchObject({ url: 'http://env:2', paths: ['/'] });
    expect(overFile.sources).toMatchObject({ upstreamUrl: 'env', upstreamPaths: 'file' });
    expect(
      load(cwd, { argv: ['--upstream-url', 'http://flag:3'], env: { WEBUI_UPSTREAM_URL: 'http://env:2' } }).settings.upstream?.url,
    ).toBe('http://flag:3');
    expect(load(cwd, { env: { WEBUI_UPSTREAM_URL: '' } }).settings.upstream?.url).toBe('http://file:1');
  });

  it('refuses the table without a url, unless the environment or a flag gives it', () => {
    const cwd = withConfig('[webui.upstream]\npaths = ["/api/chat"]\n');
    expect(errorOf(() => load(cwd))).toBe(
      `${FILE}: webui.upstream.url is missing: [webui.upstream] needs the upstream's address (or WEBUI_UPSTREAM_URL, --upstream-url)`,
    );
    expect(errorOf(() => load(withConfig('[webui.upstream]\n')))).toMatch(/webui\.upstream\.url is missing/);
    expect(load(cwd, { argv: ['--upstream-url', 'http://127.0.0.1:8002'] }).settings.upstream?.paths).toEqual(['/api/chat']);
  });

  it('refuses a url with a path, query, credentials or another scheme, never quoting a credential', () => {
    const form = 'must be http://host:port, https://host[:port] or unix:/absolute/path';
    const cases: [string, string][] = [
      ['127.0.0.1:8002', `${form}, got "127.0.0.1:8002"`],
      ['ftp://bot:21', `${form}, got "ftp://bot:21"`],
      ['ws://bot:8002', `${form}, got "ws://bot:8002"`],
      ['http:bot', `${form}, got "http:bot"`],
      ['http://bot:8002/api', `${form}, without a path (webui.upstream.paths says what is forwarded), got "http://bot:8002/api"`],
      ['http://bot:8002/?key=pw-in-query', `${form}, without a query or fragment`],
      ['http://bot:8002#x', `${form}, without a query or fragment`],
      ['http://user:pw-in-url@bot:8002', "must not hold a user or password: the upstream's credential belongs in webui.upstream.headers"],
      ['http://user:pw-in-url@bot:99999', `${form}, got "http://***@bot:99999"`],
      ['unix:relative.sock', `${form}: the socket path must be absolute, got "unix:relative.sock"`],
      ['unix:', `${form}: the socket path must be absolute, got "unix:"`],
    ];
    for (const [url, message] of cases) {
      expect(errorOf(() => load(withConfig(`[webui.upstream]\nurl = "${url}"\n`)))).toBe(`${FILE}: webui.upstream.url ${message}`);
      expect(errorOf(() => load(workspace(), { env: { WEBUI_UPSTREAM_URL: url } }))).toBe(`WEBUI_UPSTREAM_URL: ${message}`);
      expect(errorOf(() => load(workspace(), { argv: [`--upstream-url=${url}`] }))).toBe(`--upstream-url: ${message}`);
    }
    expect(errorOf(() => load(withConfig('[webui.upstream]\nurl = 8002\n')))).toBe(
      `${FILE}: webui.upstream.url must be a string (${form.slice(8)}), got 8002`,
    );
    expect(errorOf(() => parseConfigFlags(['--upstream-url']))).toBe('--upstream-url: missing value');
  });

  it('reads paths as a list or a comma-separated string and refuses what no request path could match', () => {
    expect(load(withConfig('[webui.upstream]\nurl = "http://b:1"\npaths = "/, /api/%7Euser/"\n')).settings.upstream?.paths).toEqual([
      '/',
      '/api/%7Euser',
    ]);
    for (const bad of ['api/chat', '/api?x', '/api#x', '/api/../x', '/api/./x', '/api//x', '/api/*', '/a b', '/%zz', '']) {
      const message =
        bad === '' ? 'must list at least one path prefix' : `entry ${JSON.stringify(bad)} is not a path prefix like /api/chat`;
      expect(upstreamError(`paths = ["${bad}"]`)).toContain(`${FILE}: webui.upstream.paths ${message}`);
    }
    expect(upstreamError('paths = []')).toBe(
      `${FILE}: webui.upstream.paths must list at least one path prefix (["/"] forwards every path this server does not answer)`,
    );
    expect(upstreamError('paths = "/api"\npaths2 = 1')).toBe(`${FILE}: unknown key webui.upstream.paths2`);
    expect(upstreamError('paths = [1]')).toBe(
      `${FILE}: webui.upstream.paths must be a list of strings or a comma-separated string, got [1]`,
    );
  });

  it('reads public_paths as exact paths or prefixes ending in /*, or none', () => {
    const loaded = load(withConfig('[webui.upstream]\nurl = "http://b:1"\npublic_paths = ["/assets/*", "/", "/*", "/api/x/"]\n'));
    expect(loaded.settings.upstream?.publicPaths).toEqual(['/assets/*', '/', '/*', '/api/x/']);
    expect(load(withConfig('[webui.upstream]\nurl = "http://b:1"\npublic_paths = []\n')).settings.upstream?.publicPaths).toEqual([]);
    for (const bad of ['/assets*', '/a/*/b', '*', 'assets/*', '/a/**', '/a?b=1']) {
      expect(upstreamError(`public_paths = ["${bad}"]`)).toBe(
        `${FILE}: webui.upstream.public_paths entry ${JSON.stringify(bad)} is not a path like /api/webui/version-compatibility ` +
          'or a prefix like /assets/* (starting with /, without ?, #, //, . or .. segments, * only as the whole last segment)',
      );
    }
  });

  it('reads timeout as seconds above 0 and at most 3600', () => {
    expect(load(withConfig('[webui.upstream]\nurl = "http://b:1"\ntimeout = 3600\n')).settings.upstream?.timeoutSeconds).toBe(3600);
    expect(load(withConfig('[webui.upstream]\nurl = "http://b:1"\ntimeout = 0.001\n')).settings.upstream?.timeoutSeconds).toBe(0.001);
    for (const [bad, shown] of [
      ['0', '0'],
      ['-1', '-1'],
      ['3601', '3601'],
      ['"30"', '"30"'],
      ['inf', 'Infinity'],
      ['nan', 'NaN'],
    ]) {
      expect(upstreamError(`timeout = ${bad}`)).toBe(
        `${FILE}: webui.upstream.timeout must be a number of seconds above 0 and at most 3600, got ${shown}`,
      );
    }
  });

  it('refuses an unknown key, and an upstream that is not a table without quoting it', () => {
    expect(upstreamError('timout = 5')).toBe(`${FILE}: unknown key webui.upstream.timout`);
    expect(errorOf(() => load(withConfig('[webui]\nupstream = "http://u:pw-in-file@b:1"\n')))).toBe(
      `${FILE}: webui.upstream must be a table ([webui.upstream])`,
    );
  });

  it('refuses a header name that is not a token, or that would forge identity, address or framing, naming the header', () => {
    expect(upstreamError('headers = { "Bad Name" = "x" }')).toBe(
      `${FILE}: webui.upstream.headers has a name that is not an HTTP header name: "Bad Name"`,
    );
    expect(upstreamError('headers = { "" = "x" }')).toBe(`${FILE}: webui.upstream.headers has a name that is not an HTTP header name: ""`);
    const refused: [string, string][] = [
      ['X-WebUI-Principal', 'X-WebUI-* headers tell the upstream who is calling; a configured one would forge that'],
      ['x-webui-scope', 'X-WebUI-* headers tell the upstream who is calling; a configured one would forge that'],
      ['X-Forwarded-For', 'the gateway sets it from the client address it resolved'],
      ['Forwarded', 'the gateway sets it from the client address it resolved'],
      ['X-Forwarded-Port', 'the gateway sets it from the client address it resolved'],
      ['X_Forwarded_For', 'the gateway sets it from the client address it resolved'],
      ['X_WebUI_Scope', 'X-WebUI-* headers tell the upstream who is calling; a configured one would forge that'],
      ['Host', "the upstream's Host comes from webui.upstream.url"],
      ['Content-Length', "it belongs to each request's body"],
      ['Connection', 'it is a hop-by-hop header, about one connection, never forwarded'],
      ['Transfer-Encoding', 'it is a hop-by-hop header, about one connection, never forwarded'],
      ['Upgrade', 'it is a hop-by-hop header, about one connection, never forwarded'],
      ['TE', 'it is a hop-by-hop header, about one connection, never forwarded'],
    ];
    for (const [name, reason] of refused) {
      expect(upstreamError(`headers = { "${name}" = "x" }`)).toBe(`${FILE}: webui.upstream.headers.${name} is refused: ${reason}`);
    }
    expect(upstreamError('headers = { Cookie = "a", cookie = "b" }')).toBe(
      `${FILE}: webui.upstream.headers names one header twice, as Cookie and cookie (header names ignore case)`,
    );
  });

  it('refuses a header value that is not a string, holds a line break or a broken ${...}, never quoting it', () => {
    const secret = 'pw-in-header';
    const cases: [string, string][] = [
      [`Cookie = ["${secret}"]`, 'webui.upstream.headers.Cookie must be a string (a secret is read from the environment with ${NAME})'],
      ['Cookie = 5', 'webui.upstream.headers.Cookie must be a string (a secret is read from the environment with ${NAME})'],
      [`Cookie = "${secret}\\r\\nX-Evil: 1"`, 'webui.upstream.headers.Cookie must hold no line break, other control character'],
      [
        `Cookie = "${secret}\u540d"`,
        'webui.upstream.headers.Cookie must hold no line break, other control character or character beyond Latin-1',
      ],
      [
        `Cookie = "${secret}\${TOKEN"`,
        'webui.upstream.headers.Cookie has a "${" that does not start a ${NAME} reference ' +
          '(NAME of letters, digits and _, not starting with a digit)',
      ],
      [`Cookie = "${secret}\${1ABC}"`, 'webui.upstream.headers.Cookie has a "${" that does not start a ${NAME} reference'],
      [`Cookie = "${secret}\${}"`, 'webui.upstream.headers.Cookie has a "${" that does not start a ${NAME} reference'],
      [`Cookie = "${secret}$\${\${A}}"`, 'webui.upstream.headers.Cookie has a "${" that does not start a ${NAME} reference'],
    ];
    for (const [line, message] of cases) {
      const refused = upstreamError(`[webui.upstream.headers]\n${line}`, { A: 'a' });
      expect(refused).toContain(`${FILE}: ${message}`);
      expect(refused).not.toContain(secret);
    }
    expect(upstreamError('headers = "Cookie: pw-in-header"')).toBe(
      `${FILE}: webui.upstream.headers must be a table of header names and values`,
    );
  });

  it('refuses a header whose variable is unset, empty or holds a line break, naming the header and the variable, never a value', () => {
    const toml = '[webui.upstream.headers]\nCookie = "maibot_session=${MAIBOT_TOKEN}; lang=${LANG_CODE}"';
    expect(upstreamError(toml, { LANG_CODE: 'en' })).toBe(
      `${FILE}: webui.upstream.headers.Cookie reads the environment variable MAIBOT_TOKEN, which is not set (or is empty)`,
    );
    expect(upstreamError(toml, { MAIBOT_TOKEN: '', LANG_CODE: 'en' })).toMatch(
      /reads the environment variable MAIBOT_TOKEN, which is not set/,
    );
    expect(upstreamError(toml, { MAIBOT_TOKEN: 'pw-in-env' })).toMatch(/reads the environment variable LANG_CODE, which is not set/);
    const unfit = upstreamError(toml, { MAIBOT_TOKEN: 'pw-in-env\r\nX-Evil: 1', LANG_CODE: 'en' });
    expect(unfit).toBe(
      `${FILE}: webui.upstream.headers.Cookie reads the environment variable MAIBOT_TOKEN, ` +
        'whose value holds a line break or another character a header cannot carry',
    );
    expect(unfit).not.toContain('pw-in-env');
  });

  it('reads the header variables through an environment reader, as Bun and Deno give it', () => {
    const asked: string[] = [];
    const env = { WEBUI_UPSTREAM_URL: 'http://b:1', MAIBOT_TOKEN: 'tok' } as Record<string, string>;
    const loaded = loadSettings({
      argv: [],
      cwd: withConfig('[webui.upstream.headers]\nCookie = "s=${MAIBOT_TOKEN}"\n'),
      env: (name) => {
        asked.push(name);
        return env[name];
      },
    });
    expect(loaded.settings.upstream).toMatchObject({ url: 'http://b:1', headers: { Cookie: 's=tok' } });
    expect(asked).toContain('MAIBOT_TOKEN');
    expect(asked.filter((name) => !name.startsWith('WEBUI_'))).toEqual(['MAIBOT_TOKEN']);
  });

  it('is shown by describeSettings with its sources, every header value masked and the variables it reads named', () => {
    const cwd = withConfig(`
[webui.upstream]
url = "http://127.0.0.1:8002"
paths = ["/api/webui", "/api/chat"]
[webui.upstream.headers]
Cookie = "maibot_session=\${MAIBOT_TOKEN}"
X-Literal = "pw-in-file"
`);
    const lines = describeSettings(load(cwd, { env: { MAIBOT_TOKEN: 'pw-in-env' } }));
    expect(lines.filter((line) => line.startsWith('webui.upstream.'))).toEqual([
      'webui.upstream.url = "http://127.0.0.1:8002" (file)',
      'webui.upstream.paths = ["/api/webui", "/api/chat"] (file)',
      'webui.upstream.public_paths = ["/api/webui/version-compatibility"] (default)',
      'webui.upstream.headers = {Cookie: *** (from ${MAIBOT_TOKEN}), X-Literal: ***} (file)',
      'webui.upstream.timeout = 30 (default)',
    ]);
    expect(lines.join('\n')).not.toMatch(/pw-in-|maibot_session/);
    const fromEnv = describeSettings(load(workspace(), { env: { WEBUI_UPSTREAM_URL: 'unix:/run/bot.sock' } }));
    expect(fromEnv).toContain('webui.upstream.url = "unix:/run/bot.sock" (env)');
    expect(fromEnv).toContain('webui.upstream.headers = {} (default)');
  });
});
