import { request, type IncomingHttpHeaders } from 'node:http';

/** Where every endpoint of the specification lives. */
export const API_PREFIX = '/api/webui';

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The parsed body when it is JSON, else null. */
  json: Record<string, unknown> | null;
  text: string;
  /** Every Set-Cookie header line as sent. */
  setCookie: string[];
}

export interface RequestOptions {
  /** Sent as JSON with Content-Type: application/json unless `rawBody` is given. */
  body?: unknown;
  /** Sent byte for byte; set the content type through `headers`. */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Replaces the jar for this request: a raw Cookie header value, or null to send none. */
  cookie?: string | null;
}

export interface HttpClientOptions {
  /** Source address of the connection, e.g. 127.0.0.2 (Linux routes all of 127.0.0.0/8 to lo). */
  localAddress?: string;
  /** Prepended to every path; API_PREFIX unless told otherwise. */
  prefix?: string;
  /** Connects to this Unix socket instead of the base URL's port (the Host header still comes from the base URL). */
  socketPath?: string;
}

/** A parsed Set-Cookie line: the pair and its attributes, names lower-cased. */
export interface ParsedSetCookie {
  name: string;
  value: string;
  attributes: Map<string, string | true>;
}

export function parseSetCookie(line: string): ParsedSetCookie {
  const [pair = '', ...rest] = line.split(';');
  const eq = pair.indexOf('=');
  const attributes = new Map<string, string | true>();
  for (const part of rest) {
    const trimmed = part.trim();
    if (trimmed === '') continue;
    const at = trimmed.indexOf('=');
    if (at < 0) attributes.set(trimmed.toLowerCase(), true);
    else attributes.set(trimmed.slice(0, at).trim().toLowerCase(), trimmed.slice(at + 1).trim());
  }
  return { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim(), attributes };
}

/**
 * A small HTTP client over node:http, not fetch: fetch cannot pick the source address, and the
 * ban tests need several client IPs. One connection per request, so a stopping server is not held
 * open by idle keep-alive sockets. Keeps its own cookie jar, like one browser would.
 */
export class HttpClient {
  private readonly jar = new Map<string, string>();
  private readonly base: URL;
  private readonly prefix: string;

  constructor(
    baseUrl: string,
    private readonly options: HttpClientOptions = {},
  ) {
    this.base = new URL(baseUrl);
    this.prefix = options.prefix ?? API_PREFIX;
  }

  get(path: string, options: RequestOptions = {}): Promise<HttpResponse> {
    return this.request('GET', path, options);
  }

  post(path: string, options: RequestOptions = {}): Promise<HttpResponse> {
    return this.request('POST', path, options);
  }

  /** The jar's value for a cookie, as the server sent it. */
  cookie(name: string): string | undefined {
    return this.jar.get(name);
  }

  setCookie(name: string, value: string): void {
    this.jar.set(name, value);
  }

  clearCookies(): void {
    this.jar.clear();
  }

  request(method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse> {
    const headers: Record<string, string> = { connection: 'close', ...options.headers };
    let payload: Buffer | undefined;
    if (options.rawBody !== undefined) payload = Buffer.from(options.rawBody);
    else if (options.body !== undefined) {
      payload = Buffer.from(JSON.stringify(options.body));
      headers['content-type'] ??= 'application/json';
    }
    if (payload) headers['content-length'] = String(payload.length);
    const cookie = options.cookie === undefined ? this.cookieHeader() : options.cookie;
    if (cookie) headers['cookie'] = cookie;

    return new Promise<HttpResponse>((resolve, reject) => {
      const req = request(
        {
          host: this.base.hostname.replace(/^\[|\]$/g, ''),
          port: this.base.port,
          method,
          path: `${this.prefix}${path}`,
          headers,
          agent: false,
          ...(this.options.localAddress ? { localAddress: this.options.localAddress } : {}),
          ...(this.options.socketPath ? { socketPath: this.options.socketPath } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const setCookie = res.headers['set-cookie'] ?? [];
            this.remember(setCookie);
            resolve({ status: res.statusCode ?? 0, headers: res.headers, json: parseJsonObject(text), text, setCookie });
          });
        },
      );
      req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${path}: no answer within 10 s`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  private cookieHeader(): string | undefined {
    if (this.jar.size === 0) return undefined;
    return [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** Follows Set-Cookie as a browser would: Max-Age=0 or a past Expires removes the cookie. */
  private remember(lines: string[]): void {
    for (const line of lines) {
      const { name, value, attributes } = parseSetCookie(line);
      const maxAge = attributes.get('max-age');
      const expires = attributes.get('expires');
      const gone =
        (typeof maxAge === 'string' && Number(maxAge) <= 0) ||
        (typeof expires === 'string' && Date.parse(expires) <= Date.now()) ||
        value === '';
      if (gone) this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
