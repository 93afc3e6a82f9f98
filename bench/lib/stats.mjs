// Percentiles and medians over plain samples.

/** Nearest-rank percentile of `sorted` (ascending); NaN for no samples. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** p50 and p99 of latency samples in milliseconds. */
export function latencySummary(samples) {
  const sorted = Float64Array.from(samples).sort();
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), count: sorted.length };
}

export function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** A growable Float64Array, so recording a latency allocates nothing on the hot path. */
export class SampleBuffer {
  constructor(capacity = 1 << 16) {
    this.values = new Float64Array(capacity);
    this.length = 0;
  }

  push(value) {
    if (this.length === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.length++] = value;
  }

  toArray() {
    return this.values.subarray(0, this.length);
  }
}
