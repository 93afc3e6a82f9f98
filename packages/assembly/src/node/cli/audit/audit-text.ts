import type { AuditLine } from '@webui/core';
import { localTime } from '../local-time.js';

// Shown bare; anything else (spaces, quotes, control characters, lists) is shown as JSON.
const BARE_VALUE = /^[A-Za-z0-9_.:/@+-]+$/;

/** One audit line for a terminal: local time, event, address (- for a local action), via, then the other fields as key=value. */
export function auditText(line: AuditLine): string {
  const { time, event, address, via, ...fields } = line;
  const rest = Object.entries(fields).map(
    ([key, value]) => `${key}=${typeof value === 'string' && BARE_VALUE.test(value) ? value : JSON.stringify(value)}`,
  );
  return `${[localTime(time), event, address ?? '-', via, ...rest].join(' ')}\n`;
}
