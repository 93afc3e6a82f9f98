import { err, ok, type Result } from '@webui/core/adapter';

/**
 * Where a Redis server is, as `redis://[user][:password@]host[:port][/db]` or `rediss://` (TLS) says; or a Redis Cluster, as
 * `redis-cluster://[user][:password@]host:port,host:port,…` or `rediss-cluster://` says (its seed nodes; no database).
 */
export interface RedisUrl {
  tls: boolean;
  /** The server, or a cluster's first seed node. */
  host: string;
  port: number;
  /** A cluster's seed nodes, every one named; absent for a standalone server. */
  nodes?: Array<{ host: string; port: number }>;
  db: number;
  username?: string;
  password?: string;
  /** The URL with its password replaced by `***`: what logs and error messages show. */
  address: string;
}

const DEFAULT_PORT = 6379;

const CLUSTER_URL = /^(rediss?)-cluster:\/\/(?:([^@/?#]*)@)?([^/?#]*)(.*)$/;

/** Reads a store URL; anything but a plain redis://, rediss://, redis-cluster:// or rediss-cluster:// URL is refused with one sentence saying why. */
export function parseRedisUrl(url: string): Result<RedisUrl, string> {
  const cluster = CLUSTER_URL.exec(url);
  if (cluster !== null) return parseClusterUrl(cluster);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return err(
      `"${redactStoreUrl(url)}" is not a URL; expected redis://[:password@]host[:port][/db], rediss://… or redis-cluster://host:port,…`,
    );
  }
  const address = redactStoreUrl(url);
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    return err(`"${address}" is not a Redis URL: it must start with redis:// or rediss:// (TLS), or redis-cluster:// or rediss-cluster://`);
  }
  // WHATWG URL keeps IPv6 brackets in hostname; the socket wants the bare address.
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (host === '') return err(`"${address}" names no host`);
  const port = parsed.port === '' ? DEFAULT_PORT : Number(parsed.port);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return err(`"${address}" has an invalid port`);
  const dbText = parsed.pathname.replace(/^\//, '');
  if (dbText !== '' && !/^\d{1,5}$/.test(dbText))
    return err(`"${address}" has an invalid database number "${dbText}" (expected /0, /1, …)`);
  if (parsed.search !== '' || parsed.hash !== '')
    return err(`"${address}" has query parameters or a fragment, which a store URL does not take`);
  const result: RedisUrl = { tls: parsed.protocol === 'rediss:', host, port, db: dbText === '' ? 0 : Number(dbText), address };
  if (parsed.username !== '') result.username = decodeURIComponent(parsed.username);
  if (parsed.password !== '') result.password = decodeURIComponent(parsed.password);
  return ok(result);
}

function parseClusterUrl([url, scheme, userinfo, hostList, rest]: RegExpExecArray): Result<RedisUrl, string> {
  const address = redactStoreUrl(url);
  if (rest !== '' && rest !== '/')
    return err(
      `"${address}" names a database or query parameters, which a Redis Cluster URL does not take (a cluster has database 0 only)`,
    );
  const nodes: Array<{ host: string; port: number }> = [];
  for (const node of (hostList ?? '').split(',')) {
    // Each node read as the host part of a plain URL: IPv6 in brackets, the default port when none is given.
    const one = parseRedisUrl(`redis://${node}`);
    if (node === '' || !one.ok) return err(`"${address}" has an invalid node "${node}"; expected host:port,host:port,…`);
    nodes.push({ host: one.value.host, port: one.value.port });
  }
  const [first] = nodes as [{ host: string; port: number }];
  const result: RedisUrl = { tls: scheme === 'rediss', host: first.host, port: first.port, nodes, db: 0, address };
  if (userinfo !== undefined) {
    const colon = userinfo.indexOf(':');
    const username = colon === -1 ? userinfo : userinfo.slice(0, colon);
    try {
      if (username !== '') result.username = decodeURIComponent(username);
      if (colon !== -1 && colon < userinfo.length - 1) result.password = decodeURIComponent(userinfo.slice(colon + 1));
    } catch {
      return err(`"${address}" has a user or password that is not percent-encoded correctly`);
    }
  }
  return ok(result);
}

/** The URL with its password replaced by `***` (`redis://:***@host:6379/2`); a URL without one is returned unchanged. */
export function redactStoreUrl(url: string): string {
  const cluster = CLUSTER_URL.exec(url);
  if (cluster !== null) {
    const [, scheme, userinfo, hostList, rest] = cluster;
    const colon = userinfo?.indexOf(':') ?? -1;
    if (userinfo === undefined || colon === -1) return url;
    return `${scheme}-cluster://${userinfo.slice(0, colon)}:***@${hostList}${rest}`;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL at all: hide whatever sits between the scheme and an @, which may be a password.
    return url.replace(/\/\/[^/]*@/, '//***@');
  }
  if (parsed.password === '') return url;
  parsed.password = '***';
  return parsed.toString();
}
