/** How many Host values a check remembers: a deployment sees a handful; a flood of made-up ones only evicts. */
const REMEMBERED_HOSTS = 64;

/**
 * `check` (a pure test of a Host value) with its answers remembered for the last Host values it saw:
 * a browser sends the same Host on every request, and parsing it again costs about a microsecond.
 */
export function rememberHostVerdicts(check: (host: string) => boolean): (host: string) => boolean {
  const verdicts = new Map<string, boolean>();
  return (host) => {
    const known = verdicts.get(host);
    if (known !== undefined) return known;
    const verdict = check(host);
    // The oldest goes first, so memory stays bounded whatever Hosts clients send.
    if (verdicts.size >= REMEMBERED_HOSTS) verdicts.delete(verdicts.keys().next().value as string);
    verdicts.set(host, verdict);
    return verdict;
  };
}
