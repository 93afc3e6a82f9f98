import type { HeaderSink } from './upstream-request-headers.js';

/**
 * A header list as Node's `rawHeaders` gives it (name, value, name, value...), read as a web Headers reads it: each
 * lower-case name once, repeated fields joined with ", ", except Set-Cookie, whose lines are kept apart.
 */
export function rawHeaderFields(raw: readonly string[]): { fields: Map<string, string>; setCookies: string[] } {
  const fields = new Map<string, string>();
  const setCookies: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] as string;
    if (name === 'set-cookie') setCookies.push(value);
    else {
      const had = fields.get(name);
      fields.set(name, had === undefined ? value : `${had}, ${value}`);
    }
  }
  return { fields, setCookies };
}

/** The same from a header object as undici parses it (lower-case names; a repeated field's values in an array). */
export function parsedHeaderFields(parsed: Readonly<Record<string, string | string[] | undefined>>): {
  fields: Map<string, string>;
  setCookies: string[];
} {
  const fields = new Map<string, string>();
  let setCookies: string[] = [];
  for (const name in parsed) {
    const value = parsed[name];
    if (value === undefined) continue;
    if (name === 'set-cookie') setCookies = typeof value === 'string' ? [value] : value;
    else fields.set(name, typeof value === 'string' ? value : value.join(', '));
  }
  return { fields, setCookies };
}

/** A HeaderSink that builds the plain object Node's `writeHead` and `http.request` take (Set-Cookie as an array of lines). */
export class PlainHeaders implements HeaderSink {
  readonly fields: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;

  set(name: string, value: string): void {
    this.fields[name.toLowerCase()] = value;
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const had = this.fields[key];
    if (key === 'set-cookie') this.fields[key] = had === undefined ? [value] : [...(had as string[]), value];
    else this.fields[key] = had === undefined ? value : `${had as string}, ${value}`;
  }

  has(name: string): boolean {
    return this.fields[name.toLowerCase()] !== undefined;
  }
}
