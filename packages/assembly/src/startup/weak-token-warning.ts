import { DETAILS, tokenWeakness, type Store, type TokenViolation } from '@webui/core';
import type { Logger } from 'pino';

/** The operator's line for a weak token in force: the rules it breaks and what to do, never the token. */
export function weakTokenAdvice(rules: readonly TokenViolation[]): string {
  return `${DETAILS.tokenWeakness(rules)}; set a strong one with \`webui token set\` (the dashboard asks for one at login)`;
}

/** A weak token is in force (put there by hand, or imported): it still logs in, so the log says so, every time. */
export function warnOfWeakToken(logger: Logger, rules: readonly TokenViolation[]): void {
  logger.warn({ rules }, weakTokenAdvice(rules));
}

/** Hand edits (and other instances on a shared store) bypass /auth/update's rules: warn when one puts a weak token in force. */
export function warnOfWeakTokenChanges(store: Pick<Store, 'record'>, logger: Logger): () => void {
  return store.record.onRecordChanged((record, previous) => {
    if (!record || record.accessToken === previous?.accessToken) return;
    const rules = tokenWeakness(record.accessToken);
    if (rules.length > 0) warnOfWeakToken(logger, rules);
  });
}
