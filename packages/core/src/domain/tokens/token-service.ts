import { constantTimeEqual } from '../primitives/constant-time-equal.js';
import { andThen, type Awaitable } from '../../ports/awaitable.js';
import type { RandomSource } from '../../ports/random-source.js';
import type { Store, TokenRecord } from '../../ports/store.js';
import { randomHex } from '../primitives/random-encoding.js';
import { requireRecord, type RecordEditor } from './record-editor.js';
import { err, ok, type Result } from '../result.js';
import { resolveTokenSource } from './token-source.js';
import { tokenStatus, tokenWeakness, type TokenStatus } from './token-status.js';
import { tokenViolations, type TokenViolation } from './token-strength.js';

export type { TokenStatus } from './token-status.js';

export type BootstrapReason = 'created' | 'temporary_renewed' | 'temporary_shared' | 'secret_key_changed' | 'kept';

export interface BootstrapOutcome extends TokenStatus {
  reason: BootstrapReason;
  /** The token to print at startup; only ever a temporary one (docs/decisions/0011-temporary-token.md). */
  temporaryToken: string | null;
  /** With `temporary_shared`: how many other running instances use the kept temporary token. */
  sharedWith?: number;
  /** The strength rules the token in force breaks (a weak token written by hand); empty for a fresh temporary one. */
  weakRules: TokenViolation[];
}

export interface BootstrapOptions {
  secretKeyFingerprint?: string;
  /**
   * Other instances running on the same shared store right now. While any runs, a temporary token is
   * kept rather than renewed, so the token each of them printed stays the one in force.
   */
  liveInstances?: number;
}

export interface RotationOutcome extends TokenStatus {
  token: string;
  previousToken: string;
}

/** The access token: creating, checking and replacing it (the specification's "Token source" table). */
export class TokenService {
  constructor(
    private readonly store: Pick<Store, 'record'>,
    private readonly editor: RecordEditor,
    private readonly random: RandomSource,
  ) {}

  /**
   * Runs once at startup: no record -> a temporary token; a temporary record -> a fresh one, unless
   * other instances on the same store are running with it (then it is kept and printed again);
   * a changed secret-key fingerprint -> a fresh temporary token, revoking every session (docs/decisions/0010-secret-key-revokes-sessions.md).
   */
  bootstrap(options: BootstrapOptions = {}): Promise<BootstrapOutcome> {
    const fingerprint = options.secretKeyFingerprint;
    const liveInstances = options.liveInstances ?? 0;
    return this.editor.edit<BootstrapOutcome>((current) => {
      const keyChanged = current !== null && current.secretKeyFingerprint !== undefined && current.secretKeyFingerprint !== fingerprint;
      const reason: BootstrapReason = !current
        ? 'created'
        : keyChanged
          ? 'secret_key_changed'
          : resolveTokenSource(current) !== 'temporary'
            ? 'kept'
            : liveInstances > 0
              ? 'temporary_shared'
              : 'temporary_renewed';
      if (reason === 'kept' && current) {
        const next: TokenRecord = { ...current, tokenSource: 'configured', ...fingerprintField(fingerprint) };
        const changed = current.tokenSource !== 'configured' || current.secretKeyFingerprint !== fingerprint;
        return {
          next: changed ? next : null,
          result: { reason, temporaryToken: null, ...tokenStatus(next), weakRules: tokenWeakness(next.accessToken) },
        };
      }
      if (reason === 'temporary_shared' && current) {
        const next = current.secretKeyFingerprint === fingerprint ? null : { ...current, ...fingerprintField(fingerprint) };
        return {
          next,
          result: {
            reason,
            temporaryToken: current.accessToken,
            sharedWith: liveInstances,
            ...tokenStatus({ ...current, tokenSource: 'temporary' }),
            weakRules: tokenWeakness(current.accessToken),
          },
        };
      }
      const temporaryToken = this.generate();
      const next: TokenRecord = {
        ...current,
        accessToken: temporaryToken,
        tokenSource: 'temporary',
        firstSetupCompleted: current?.firstSetupCompleted ?? false,
        ...fingerprintField(fingerprint),
      };
      if (!fingerprint) delete next.secretKeyFingerprint;
      return { next, result: { reason, temporaryToken, ...tokenStatus(next), weakRules: [] } };
    });
  }

  /** Whether `candidate` is the access token, compared in constant time. */
  async verify(candidate: string): Promise<boolean> {
    return (await this.statusFor(candidate)) !== null;
  }

  /**
   * The token's status when `candidate` is the access token (compared in constant time), else null: one read for both; at
   * once when the store answers at once (Awaitable).
   */
  statusFor(candidate: string): Awaitable<TokenStatus | null> {
    return andThen(this.store.record.readRecord(), (record) =>
      record === null || !constantTimeEqual(candidate, record.accessToken) ? null : tokenStatus(record),
    );
  }

  async status(): Promise<TokenStatus> {
    return tokenStatus(await this.editor.read());
  }

  /** Replaces the token with a custom one that meets every strength rule (docs/decisions/0005-weak-tokens.md). */
  async update(newToken: string): Promise<Result<RotationOutcome, { code: 'weak_token'; violations: TokenViolation[] }>> {
    const result = await this.editor.edit<Result<RotationOutcome, { code: 'weak_token'; violations: TokenViolation[] }>>((current) => {
      const record = requireRecord(current);
      const violations = tokenViolations(newToken);
      if (constantTimeEqual(newToken, record.accessToken)) violations.push('same_as_current');
      if (violations.length > 0) return { next: null, result: err({ code: 'weak_token' as const, violations }) };
      const rotated = rotation(record, newToken);
      return { next: rotated.next, result: ok(rotated.outcome) };
    });
    return result;
  }

  /** Replaces the token with 64 random hex characters, returned once. */
  async regenerate(): Promise<RotationOutcome> {
    const outcome = await this.editor.edit((current) => {
      const rotated = rotation(requireRecord(current), this.generate());
      return { next: rotated.next, result: rotated.outcome };
    });
    return outcome;
  }

  private generate(): string {
    return randomHex(this.random, 32);
  }
}

function rotation(current: TokenRecord, token: string): { next: TokenRecord; outcome: RotationOutcome } {
  const next: TokenRecord = { ...current, accessToken: token, tokenSource: 'configured' };
  return { next, outcome: { token, previousToken: current.accessToken, ...tokenStatus(next) } };
}

function fingerprintField(fingerprint: string | undefined): { secretKeyFingerprint?: string } {
  return fingerprint ? { secretKeyFingerprint: fingerprint } : {};
}
