/** How many values a check remembers: a deployment sees a handful of Hosts and paths; a flood of made-up ones only evicts. */
const REMEMBERED_VALUES = 64;

/**
 * `check` (a pure test of a string: a Host value, a request path) with its answers remembered for the last values it saw:
 * a browser sends the same Host on every request and the dashboard reads the same few paths, and judging one again costs
 * about a microsecond (parsing a Host, searching a router).
 */
export function rememberVerdicts(check: (value: string) => boolean): (value: string) => boolean {
  const verdicts = new Map<string, boolean>();
  return (value) => {
    const known = verdicts.get(value);
    if (known !== undefined) return known;
    const verdict = check(value);
    // The oldest goes first, so memory stays bounded whatever values clients send.
    if (verdicts.size >= REMEMBERED_VALUES) verdicts.delete(verdicts.keys().next().value as string);
    verdicts.set(value, verdict);
    return verdict;
  };
}
