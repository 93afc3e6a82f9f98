const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** The longest duration accepted anywhere (key lifetimes, audit look-backs): ten years. */
export const MAX_DURATION_MS = 3_650 * UNIT_MS.d;

/**
 * A duration as operators type it, a whole number and one unit: `30s`, `15m`, `1h`, `90d`, `2w`.
 * Returns milliseconds, or null for anything else (no unit, zero, a fraction, longer than ten years).
 */
export function parseDuration(text: string): number | null {
  const match = /^([1-9][0-9]{0,6})([smhdw])$/.exec(text.trim());
  if (!match) return null;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return ms <= MAX_DURATION_MS ? ms : null;
}
