import { err, ok, type Result } from '@webui/core';

/** Where a Redis server is, as `redis://[user][:password@]host[:port][/db]` or `rediss://` (TLS) says. */
export interface RedisUrl {
  tls: boolean;
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  /** The URL with its password replaced by `***`: what logs and error messages show. */
  address: string;
}

const DEFAULT_PORT = 6379;

/** Reads a store URL; anything but a plain redis:// or rediss:// URL is refused with one sentence saying why. */
export function parseRedisUrl(url: string): Result<RedisUrl, string> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return err(`"${redactStoreUrl(url)}" is not a URL; expected redis://[:password@]host[:port][/db] or rediss://…`);
  }
  const address = redactStoreUrl(url);
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    return err(`"${address}" is not a Redis URL: it must start with redis:// or rediss:// (TLS)`);
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

/** The URL with its password replaced by `***` (`redis://:***@host:6379/2`); a URL without one is returned unchanged. */
export function redactStoreUrl(url: string): string {
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
