import type { Context } from 'hono';
import { deleteCookie, generateCookie } from 'hono/cookie';
import type { AppLogger, HttpPolicy, WebuiEnv } from '../../app-env.js';
import { bearerCredential } from './bearer-credential.js';
import { requestHeader } from '../../runtime-port.js';

export const SESSION_COOKIE = 'bot_session';

/**
 * Every bot_session value a Cookie header carries, each with the tokens it may stand for: percent-decoded
 * as docs/decisions/0006-session-cookie.md writes it, and raw, for scripts that paste the token straight from webui.json.
 */
export function sessionCookieCandidates(header: string | undefined): Array<{ raw: string; tokens: string[] }> {
  if (!header) return [];
  const cookies: Array<{ raw: string; tokens: string[] }> = [];
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    let raw = pair.slice(eq + 1).trim();
    if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) raw = raw.slice(1, -1);
    // Only a value with a percent sign can decode to something else.
    const decoded = raw.includes('%') ? safeDecode(raw) : raw;
    cookies.push({ raw, tokens: decoded !== null && decoded !== raw ? [raw, decoded] : [raw] });
  }
  return cookies;
}

function safeDecode(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

/**
 * Secure when webui.secure_cookie is set or, in production, over HTTPS (docs/decisions/0006-session-cookie.md); in production over plain HTTP it is left off with one
 * warning.
 */
export class SessionCookie {
  private warnedInsecure = false;
  /** The attribute part of an issued cookie (`; Max-Age=...; Path=/; ...`), by Secure: the policy never changes. */
  private readonly issuedAttributes = new Map<boolean, string>();

  constructor(
    private readonly policy: HttpPolicy,
    private readonly logger: AppLogger,
  ) {}

  issue(c: Context<WebuiEnv>, token: string): void {
    if (carriesBearer(c)) return;
    const attributes = this.attributes(c);
    let suffix = this.issuedAttributes.get(attributes.secure);
    if (suffix === undefined) {
      // hono's own serialisation of the attributes, made once: every login would otherwise redo it.
      suffix = generateCookie(SESSION_COOKIE, '', { ...attributes, maxAge: this.policy.sessionExpireDays * 86_400 }).slice(
        SESSION_COOKIE.length + 1,
      );
      this.issuedAttributes.set(attributes.secure, suffix);
    }
    c.header('Set-Cookie', `${SESSION_COOKIE}=${encodeURIComponent(token)}${suffix}`, { append: true });
  }

  clear(c: Context<WebuiEnv>): void {
    if (carriesBearer(c)) return;
    deleteCookie(c, SESSION_COOKIE, this.attributes(c));
  }

  private attributes(c: Context<WebuiEnv>) {
    const secure = this.policy.secureCookie || (this.policy.mode === 'production' && c.get('secureTransport'));
    if (!secure && this.policy.mode === 'production' && !this.warnedInsecure) {
      this.warnedInsecure = true;
      this.logger.warn(
        {},
        'session cookie sent without Secure: the request came over plain HTTP; serve the WebUI over HTTPS or set webui.secure_cookie',
      );
    }
    return { path: '/', httpOnly: true, sameSite: 'Lax' as const, secure };
  }
}

/** A script authenticating with a bearer keeps no cookie jar: it never gets a Set-Cookie, not even a clearing one. */
function carriesBearer(c: Context<WebuiEnv>): boolean {
  return bearerCredential(requestHeader(c, 'authorization')) !== null;
}
