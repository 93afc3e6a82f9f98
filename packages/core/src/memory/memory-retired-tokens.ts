import type { Clock } from '../ports/clock.js';
import type { RetiredTokenStore } from '../ports/retired-token-store.js';
import { RememberedKeys } from './remembered-keys.js';

/** Retired-token fingerprints in memory, the least recently retired forgotten first past the cap. */
export class MemoryRetiredTokens implements RetiredTokenStore {
  private readonly fingerprints: RememberedKeys;

  constructor(
    private readonly clock: Clock,
    max: number,
  ) {
    this.fingerprints = new RememberedKeys(max);
  }

  async retireToken(fingerprint: string, until: number): Promise<void> {
    this.fingerprints.remember(fingerprint, until);
  }

  async isRetiredToken(fingerprint: string): Promise<boolean> {
    return this.fingerprints.has(fingerprint, this.clock.now());
  }

  sweep(now: number): void {
    this.fingerprints.sweep(now);
  }
}
