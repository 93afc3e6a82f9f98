/**
 * A configured header value: text with `${NAME}` references to environment variables, so a secret stays out of the file.
 * There is no escape: every `${` must start a reference (no header an upstream takes needs a literal `${`); a lone `$` is text.
 */
export type TemplatePart = { text: string } | { variable: string };

const REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}/;

/** The parts of a template, or null when a `${` does not start a well-formed `${NAME}`. */
export function templateParts(template: string): TemplatePart[] | null {
  const parts: TemplatePart[] = [];
  let at = 0;
  for (let start = template.indexOf('${'); start !== -1; start = template.indexOf('${', at)) {
    const reference = REFERENCE.exec(template.slice(start));
    if (reference === null) return null;
    if (start > at) parts.push({ text: template.slice(at, start) });
    parts.push({ variable: reference[1] as string });
    at = start + reference[0].length;
  }
  if (at < template.length) parts.push({ text: template.slice(at) });
  return parts;
}

/** The variables a template reads, each once, in order. */
export function templateVariables(template: string): string[] {
  const names = (templateParts(template) ?? []).flatMap((part) => ('variable' in part ? [part.variable] : []));
  return [...new Set(names)];
}

/** Tab, visible ASCII, space and Latin-1: what fetch's Headers carries; a line break would split the header. */
export const isHeaderValueText = (text: string): boolean => /^[\t\x20-\x7e\x80-\xff]*$/.test(text);

export type Expansion = { ok: true; value: string } | { ok: false; variable: string; problem: 'unset' | 'unfit' };

/** The value with each `${NAME}` replaced; an unset (or empty) variable, or one a header cannot carry, is named. */
export function expandTemplate(parts: readonly TemplatePart[], readEnv: (name: string) => string | undefined): Expansion {
  let value = '';
  for (const part of parts) {
    if ('text' in part) {
      value += part.text;
      continue;
    }
    const text = readEnv(part.variable);
    if (text === undefined || text === '') return { ok: false, variable: part.variable, problem: 'unset' };
    if (!isHeaderValueText(text)) return { ok: false, variable: part.variable, problem: 'unfit' };
    value += text;
  }
  return { ok: true, value };
}
