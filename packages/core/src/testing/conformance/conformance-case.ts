/** The clock a conformance case reads and moves. */
export interface ConformanceClock {
  now(): number;
  advance(ms: number): void;
}

/** What one case of a port's suite needs: a fresh, empty port and the clock it reads. */
export interface PortHarness<Port> {
  store: Port;
  clock: ConformanceClock;
  /**
   * `count` independent clients of the same backing state as `store` (other connections, as other
   * processes would have); a port that lives in one process answers with `store` itself.
   */
  clients(count: number): Promise<Port[]>;
  cleanup?(): Promise<void>;
}

export interface StoreConformanceCase {
  name: string;
  run: () => Promise<void>;
}

/** A case body run on a fresh harness, cleaned up whatever happens. */
export function withHarness<Port>(
  makeHarness: () => Promise<PortHarness<Port>>,
  body: (harness: PortHarness<Port>) => Promise<void>,
): () => Promise<void> {
  return async () => {
    const harness = await makeHarness();
    try {
      await body(harness);
    } finally {
      await harness.cleanup?.();
    }
  };
}

export function expectEqual(actual: unknown, expected: unknown, what: string): void {
  if (!deepEqual(actual, expected)) throw new Error(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

/** Structural equality of JSON-like values; a key holding undefined counts as absent, as it would on disk. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aEntries = definedEntries(a);
  const bEntries = definedEntries(b);
  if (aEntries.length !== bEntries.length) return false;
  const bMap = new Map(bEntries);
  return aEntries.every(([key, value]) => bMap.has(key) && deepEqual(value, bMap.get(key)));
}

function definedEntries(value: object): Array<[string, unknown]> {
  return Object.entries(value).filter(([, entry]) => entry !== undefined);
}

function show(value: unknown): string {
  return value === undefined ? 'undefined' : JSON.stringify(value);
}
