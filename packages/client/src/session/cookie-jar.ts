/**
 * The cookies one server set, for runtimes without a cookie jar (Node, Bun, Deno). Values are kept
 * exactly as the server sent them (bot_session is percent-encoded, docs/decisions/0006-session-cookie.md) and sent back as is.
 * In a browser Set-Cookie is hidden from scripts and this jar stays empty: the browser's own jar works.
 */
export class CookieJar {
  private readonly cookies = new Map<string, { value: string; expiresAt: number | undefined }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Takes every Set-Cookie of a response; Max-Age=0 or a past Expires removes the cookie. */
  store(headers: Headers): void {
    for (const line of setCookieLines(headers)) this.storeLine(line);
  }

  storeLine(line: string): void {
    const [pair = '', ...attributes] = line.split(';');
    const eq = pair.indexOf('=');
    if (eq <= 0) return;
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    let expiresAt: number | undefined;
    let maxAgeSeen = false;
    for (const attribute of attributes) {
      const [key = '', ...rest] = attribute.split('=');
      const attributeValue = rest.join('=').trim();
      const lower = key.trim().toLowerCase();
      if (lower === 'max-age' && /^-?\d+$/.test(attributeValue)) {
        // Max-Age wins over Expires (RFC 6265 5.3).
        maxAgeSeen = true;
        expiresAt = this.now() + Number(attributeValue) * 1000;
      } else if (lower === 'expires' && !maxAgeSeen) {
        const date = Date.parse(attributeValue);
        if (!Number.isNaN(date)) expiresAt = date;
      }
    }
    if (expiresAt !== undefined && expiresAt <= this.now()) this.cookies.delete(name);
    else this.cookies.set(name, { value, expiresAt });
  }

  get(name: string): string | undefined {
    const cookie = this.cookies.get(name);
    if (!cookie) return undefined;
    if (cookie.expiresAt !== undefined && cookie.expiresAt <= this.now()) {
      this.cookies.delete(name);
      return undefined;
    }
    return cookie.value;
  }

  delete(name: string): void {
    this.cookies.delete(name);
  }

  clear(): void {
    this.cookies.clear();
  }

  /** The Cookie request header, or undefined when the jar holds nothing live. */
  header(): string | undefined {
    const pairs: string[] = [];
    for (const name of [...this.cookies.keys()]) {
      const value = this.get(name);
      if (value !== undefined) pairs.push(`${name}=${value}`);
    }
    return pairs.length > 0 ? pairs.join('; ') : undefined;
  }
}

function setCookieLines(headers: Headers): string[] {
  if (typeof headers.getSetCookie === 'function') return headers.getSetCookie();
  // Older runtimes join them with ", "; split only where a new name=value starts (Expires holds a comma too).
  const joined = headers.get('set-cookie');
  return joined ? joined.split(/,(?=\s*[^;,=\s]+=)/).map((line) => line.trim()) : [];
}
