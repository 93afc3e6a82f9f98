/**
 * Keys remembered until a time, at most `max` of them. A Map keeps insertion order, so the first key is
 * always the least recently remembered one and dropping it past the cap is O(1).
 */
export class RememberedKeys {
  private readonly untils = new Map<string, number>();

  constructor(private readonly max: number) {}

  remember(key: string, until: number): void {
    this.untils.delete(key);
    this.untils.set(key, until);
    if (this.untils.size > this.max) this.untils.delete(this.untils.keys().next().value as string);
  }

  has(key: string, now: number): boolean {
    const until = this.untils.get(key);
    if (until === undefined) return false;
    if (until > now) return true;
    this.untils.delete(key);
    return false;
  }

  sweep(now: number): void {
    for (const [key, until] of this.untils) if (until <= now) this.untils.delete(key);
  }
}
