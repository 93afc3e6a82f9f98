import type { BudgetState } from '@webui/core';
import * as v from 'valibot';

/** The global failure budget as `webui bans list --json` and the control socket carry it (snake_case, like the HTTP API's bodies). */
export const BudgetBody = v.object({
  /** Failures per hour before new clients are held back; 0: off. */
  limit: v.number(),
  /** Failures counted in the last hour. */
  failures: v.number(),
  /** What a new client without a recent login meets now. */
  state: v.picklist(['off', 'open', 'delayed', 'throttled']),
  delay_ms: v.nullable(v.number()),
  retry_after: v.nullable(v.number()),
});
export type BudgetJson = v.InferOutput<typeof BudgetBody>;

export function budgetJson(budget: BudgetState): BudgetJson {
  return {
    limit: budget.limit,
    failures: budget.failures,
    state: budget.state,
    delay_ms: budget.delayMs,
    retry_after: budget.retryAfterSeconds,
  };
}
