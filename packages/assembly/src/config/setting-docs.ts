import type * as v from 'valibot';
import { upstreamSettingNotes, upstreamTableDefaults, upstreamTableSchema } from '@webui/gateway';
import type { SettingNote } from '@webui/http-hono';
import { webuiTableSchema } from './config-file.js';
import { defaultConfigPath, defaultDataDir, defaultSettings, settingFileKeys, type SettingName } from './settings.js';
import { tlsTableSchema } from '../tls/tls-table.js';

// What the configuration reference (docs/reference/configuration.md, written by `npm run docs`) says of each key beyond what its
// schema and default give: the variable and flag that also set it, and one sentence. Type, range and default are read from the
// schemas and defaults themselves; a test checks every variable and flag here against loadSettings.

const WEBUI_NOTES: Record<(typeof settingFileKeys)[SettingName], SettingNote> = {
  enabled: { description: '`false`: the server says so and exits 0 without listening.' },
  host: {
    env: 'WEBUI_HOST',
    flag: '--host',
    description:
      'Addresses to bind. `unix:/absolute/path` listens on a Unix socket (mode 0660, Node server only). Bound to `0.0.0.0` or `::`, ' +
      'the banner lists the machine’s addresses and warns while `allowed_hosts` is empty.',
  },
  port: { env: 'WEBUI_PORT', flag: '--port', description: 'The port of every host; `0` picks a free one.' },
  secure_cookie: { description: 'Always add `Secure` to the session cookie.' },
  trusted_proxies: {
    description:
      'IPs or CIDRs of reverse proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed. Wider than a /24 or a /48 is ' +
      'warned about; wider than a /8 or a /7 stops the start. A proxy on the same machine needs none: use a Unix socket.',
  },
  allowed_ips: { description: 'IPs or CIDRs; when set, every other client gets 403 on every path.' },
  secret_key: { description: 'Changing it revokes every session: a new temporary token is made at the next start. Never printed.' },
  session_expire: { description: 'Lifetime of the session cookie, in days.' },
  mode: { description: 'In `production`, `Secure` is added to the cookie when the request came over HTTPS.' },
  allowed_origins: {
    description: 'Extra origins (`scheme://host[:port]`, e.g. a dashboard dev server) allowed for CORS and state changes.',
  },
  allowed_hosts: {
    description:
      'Extra `Host` names accepted besides loopback ones (the DNS-rebinding guard): checked while bound to loopback or Unix sockets ' +
      'only, and on any bind once set.',
  },
  log_level: { description: '`debug` adds one line per request.' },
  log_format: {
    env: 'WEBUI_LOG_FORMAT',
    description:
      '`auto`: readable, coloured lines on a terminal, JSON lines otherwise; `pretty` or `json` always. Secrets are redacted in both.',
  },
  ban_exempt: {
    description: 'IPs or CIDRs never banned (their failures are still logged); an entry wider than a /24 or a /48 is warned about.',
  },
  global_failure_budget: {
    description: 'Failed logins per hour from all addresses together before new clients are slowed down, then refused; `0` turns it off.',
  },
  max_connections_per_client: {
    description:
      'TCP connections one client address (an IPv6 /64) may hold open at once, on the Node server; a new one past it is closed ' +
      'before a byte is read. Connections from `trusted_proxies` are not counted ([0041](../decisions/0041-open-connections-per-client.md)).',
  },
  audit_max_bytes: { description: '`data/audit.log` is rotated before a line would take it past this size.' },
  audit_keep: { description: 'Rotated audit files kept (`audit.log.1` newest); older ones are deleted.' },
  store: {
    env: 'WEBUI_STORE',
    flag: '--store',
    description:
      'Where the state lives: `file` (`data/webui.json`, bans and tickets in memory), `redis://[:password@]host:port/db` ' +
      '(or `rediss://`), or a Redis Cluster, `redis-cluster://[:password@]host:port,host:port,…` (or `rediss-cluster://`). ' +
      'Shown with the password as `***`.',
  },
  store_prefix: {
    description: 'Prefix of every Redis key and channel, so one Redis can hold several deployments: 1 to 64 visible ASCII characters.',
  },
  metrics_port: {
    description:
      'A port on 127.0.0.1 answering `GET /metrics` without a credential, for a Prometheus on the same machine; a `Host` that is ' +
      'not a loopback name gets 403.',
  },
};

const TLS_NOTES: Record<keyof typeof tlsTableSchema.entries, SettingNote> = {
  cert: {
    env: 'WEBUI_TLS_CERT',
    flag: '--tls-cert',
    description:
      'PEM certificate (leaf first, then any chain): every TCP listener speaks HTTPS; a Unix socket stays plain. Relative to the ' +
      'working directory. Reloaded when the file changes, on `SIGHUP` and by `webui tls reload`; see [HTTPS](../https.md).',
  },
  key: { env: 'WEBUI_TLS_KEY', flag: '--tls-key', description: 'PEM private key of `tls.cert`: given with it, never alone.' },
  self_signed: {
    description:
      'Make an ECDSA P-256 key and a certificate for a year in `data/tls/` (names: localhost, loopback, `allowed_hosts`, the ' +
      'machine’s addresses on a wildcard bind); the banner shows its SHA-256 fingerprint. Not with `tls.cert`.',
  },
  hsts: { description: 'Send `Strict-Transport-Security: max-age=31536000`. Refused with `self_signed`.' },
};

/** Where the configuration itself is read from: not keys of the file. */
export const SETTING_LOCATIONS = [
  { name: 'config file', env: 'WEBUI_CONFIG', flag: '--config', default: defaultConfigPath, description: 'The TOML file; absent is fine.' },
  {
    name: 'data directory',
    env: 'WEBUI_DATA_DIR',
    flag: '--data-dir',
    default: defaultDataDir,
    description: '`webui.json`, `audit.log`, the lock and the control socket (made 0700).',
  },
] as const;

/** One row of the configuration reference. */
export interface SettingReference {
  /** The key under [webui]: `port`, `upstream.url`. */
  key: string;
  type: string;
  /** The default in TOML notation, or `unset`. */
  default: string;
  /** What the schema allows beyond the type, or empty. */
  range: string;
  env: string | undefined;
  flag: string | undefined;
  description: string;
}

/** Every key of [webui], [webui.upstream] and [webui.tls], in the order of the file's schemas. */
export function settingReference(): SettingReference[] {
  const fileKeyToName = new Map(Object.entries(settingFileKeys).map(([name, key]) => [key, name as SettingName]));
  const webuiEntries = webuiTableSchema.pipe[0].entries;
  const rows: SettingReference[] = [];
  for (const [key, schema] of Object.entries(webuiEntries)) {
    if (key === 'upstream' || key === 'tls') continue;
    const name = fileKeyToName.get(key as keyof typeof WEBUI_NOTES);
    if (name === undefined) throw new Error(`[webui] ${key} has no setting name`);
    rows.push(row(key, schema, defaultSettings[name], WEBUI_NOTES[key as keyof typeof WEBUI_NOTES]));
  }
  for (const [key, schema] of Object.entries(upstreamTableSchema.entries)) {
    const upstreamKey = key as keyof typeof upstreamSettingNotes;
    rows.push(row(`upstream.${key}`, schema, upstreamTableDefaults[upstreamKey], upstreamSettingNotes[upstreamKey]));
  }
  for (const [key, schema] of Object.entries(tlsTableSchema.entries)) {
    const tlsKey = key as keyof typeof TLS_NOTES;
    rows.push(row(`tls.${key}`, schema, tlsKey === 'self_signed' || tlsKey === 'hsts' ? false : undefined, TLS_NOTES[tlsKey]));
  }
  return rows;
}

function row(key: string, schema: v.GenericSchema, value: unknown, note: SettingNote): SettingReference {
  const { type, range } = describeSchema(schema);
  return { key, type, default: tomlValue(value), range, env: note.env, flag: note.flag, description: note.description };
}

type SchemaNode = {
  type: string;
  kind?: string;
  requirement?: unknown;
  options?: readonly unknown[];
  wrapped?: SchemaNode;
  pipe?: SchemaNode[];
};

/** The type and the limits a valibot schema of a setting states: its base schema and the validation actions of its pipes. */
export function describeSchema(schema: v.GenericSchema): { type: string; range: string } {
  const { base, actions } = flatten(schema as unknown as SchemaNode);
  const requirement = (type: string) => actions.find((action) => action.type === type)?.requirement;
  const min = requirement('min_value');
  const max = requirement('max_value');
  const minLength = requirement('min_length');
  let type: string;
  switch (base.type) {
    case 'boolean':
      type = 'boolean';
      break;
    case 'number':
      type = actions.some((action) => action.type === 'integer') ? 'integer' : 'number';
      break;
    case 'picklist':
      type = 'string';
      break;
    case 'union':
      // listSchema: a TOML array of strings, or one comma-separated string.
      type = 'list of strings';
      break;
    case 'record':
      type = 'table of strings';
      break;
    default:
      type = base.type;
  }
  const limits: string[] = [];
  if (base.type === 'picklist') limits.push(`one of ${(base.options ?? []).map((option) => `\`${String(option)}\``).join(', ')}`);
  if (min !== undefined && max !== undefined) limits.push(`${String(min)} to ${String(max)}`);
  else if (min !== undefined) limits.push(`at least ${String(min)}`);
  else if (max !== undefined) limits.push(`at most ${String(max)}`);
  if (minLength !== undefined) limits.push(`at least ${String(minLength)} ${minLength === 1 ? 'entry' : 'entries'}`);
  return { type, range: limits.join('; ') };
}

function flatten(schema: SchemaNode): { base: SchemaNode; actions: SchemaNode[] } {
  if (schema.type === 'optional' && schema.wrapped) return flatten(schema.wrapped);
  if (schema.pipe) {
    const [first, ...rest] = schema.pipe;
    const inner = flatten(first as SchemaNode);
    return { base: inner.base, actions: [...inner.actions, ...rest.filter((item) => item.kind !== 'schema')] };
  }
  return { base: schema, actions: [] };
}

/** A default as it would be written in the TOML file. */
export function tomlValue(value: unknown): string {
  if (value === undefined) return 'unset';
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object' && value !== null) return Object.keys(value).length === 0 ? '{}' : JSON.stringify(value);
  return String(value);
}
