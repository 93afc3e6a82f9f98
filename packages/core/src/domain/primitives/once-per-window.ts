/**
 * When a line that repeats may be logged again: at most once per `windowMs` for each key, the ones held back in between
 * counted into the next. At most `maxKeys` keys are remembered; past it the key logged longest ago is forgotten (its next
 * event is simply logged). The server's "at most once a minute" lines all keep this one rule.
 */
export class OncePerWindow<Key> {
  private readonly logged = new Map<Key, { at: number; held: number }>();

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys = Number.POSITIVE_INFINITY,
  ) {}

  /** Whether the event of `key` at `now` is logged: null when it is held back (and counted), else how many were held back. */
  due(key: Key, now: number): number | null {
    const entry = this.logged.get(key);
    if (entry !== undefined && now - entry.at < this.windowMs) {
      entry.held += 1;
      return null;
    }
    // Re-inserted, so the Map's order is the order of last lines and the first key is the oldest.
    this.logged.delete(key);
    this.logged.set(key, { at: now, held: 0 });
    if (this.logged.size > this.maxKeys) this.logged.delete(this.logged.keys().next().value as Key);
    return entry?.held ?? 0;
  }
}
