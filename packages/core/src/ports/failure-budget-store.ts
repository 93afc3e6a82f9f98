/** The failures counted in one minute across all addresses. */
export interface BudgetBucket {
  bucket: number;
  count: number;
}

/** The global failure budget: failures of all addresses counted per minute (BanPolicy does the arithmetic). */
export interface FailureBudgetStore {
  /** Adds `count` failures (negative: gives them back) to the bucket `bucket` (a minute number), kept until `expiresAt`. */
  addGlobalFailures(bucket: number, count: number, expiresAt: number): Promise<void>;
  /** Failures per bucket for every bucket at or after `fromBucket`, oldest first. */
  readGlobalFailures(fromBucket: number): Promise<BudgetBucket[]>;
  /** Forgets every bucket at once (an operator's reset); counts added afterwards start from nothing. */
  clearGlobalFailures(): Promise<void>;
}
