import type { LoadedSettings } from '../../../index.js';
import { parseDuration, SECURITY_EVENT_NAMES } from '@webui/core';
import { AUDIT_LOG_FILE_NAME, readAuditLog, type AuditLogFilter } from '@webui/store-json';
import { auditText } from './audit-text.js';
import type { CliIo } from '../cli-io.js';
import { EXIT_OK, EXIT_USAGE } from '../exit-codes.js';

interface AuditOptions {
  filter: AuditLogFilter;
  json: boolean;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const EVENTS_ARE = `the events are ${SECURITY_EVENT_NAMES.join(', ')}`;
const SINCE_FORMS = 'a duration (30s, 15m, 1h, 7d, 2w) or a time (2025-01-31, 2025-01-31T08:00, 2025-01-31T08:00:00Z)';
// A date, optionally a time of day, optionally a zone; without a zone it is local time, like the times printed.
const ISO_TIME = /^(\d{4}-\d\d-\d\d)(?:[T ](\d\d:\d\d(?::\d\d(?:\.\d{1,3})?)?)(Z|[+-]\d\d:\d\d)?)?$/;

/**
 * `webui audit [--since <duration|time>] [--event <name>[,<name>...]]... [--json]`: the audit trail
 * of the data directory, oldest first. Reads the files only, so it needs neither the server nor the lock.
 */
export function auditCommand(args: readonly string[], loaded: LoadedSettings, io: CliIo, now: number = Date.now()): number {
  const parsed = parseAuditArgs(args, now);
  if (!parsed.ok) {
    io.stderr(`webui audit: ${parsed.message}\n`);
    return EXIT_USAGE;
  }
  const { filter, json } = parsed.value;
  const read = readAuditLog(loaded.dataDir, filter);
  if (read.files.length === 0) {
    io.stderr(`no audit log in ${loaded.dataDir} yet: the server writes ${AUDIT_LOG_FILE_NAME} there at the first security event\n`);
    return EXIT_OK;
  }
  // As stored: each line was written by JSON.stringify, so writing it again gives the same text.
  io.stdout(read.lines.map((line) => (json ? `${JSON.stringify(line)}\n` : auditText(line))).join(''));
  if (read.skipped > 0) {
    io.stderr(
      `skipped ${read.skipped} ${read.skipped === 1 ? 'line that is' : 'lines that are'} not a whole audit line (cut short by a crash, ` +
        `or edited by hand)\n`,
    );
  }
  return EXIT_OK;
}

function parseAuditArgs(args: readonly string[], now: number): Parsed<AuditOptions> {
  const options: AuditOptions = { filter: {}, json: false };
  const events: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--json') {
      options.json = true;
      continue;
    }
    const equals = arg.indexOf('=');
    const name = equals === -1 ? arg : arg.slice(0, equals);
    if (name !== '--since' && name !== '--event') return { ok: false, message: `unknown option or argument ${JSON.stringify(arg)}` };
    let value: string | undefined;
    if (equals !== -1) value = arg.slice(equals + 1);
    else if (args[i + 1] !== undefined && !(args[i + 1] as string).startsWith('--')) value = args[++i];
    if (name === '--since') {
      const since = value === undefined ? null : parseSince(value, now);
      if (since === null)
        return { ok: false, message: `--since takes ${SINCE_FORMS}${value === undefined ? '' : `, got ${JSON.stringify(value)}`}` };
      options.filter.since = since;
    } else {
      const names = (value ?? '')
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== '');
      if (names.length === 0) return { ok: false, message: `--event takes event names separated by commas; ${EVENTS_ARE}` };
      const unknown = names.find((part) => !(SECURITY_EVENT_NAMES as readonly string[]).includes(part));
      if (unknown !== undefined) return { ok: false, message: `unknown event ${JSON.stringify(unknown)}; ${EVENTS_ARE}` };
      events.push(...names);
    }
  }
  if (events.length > 0) options.filter.events = events;
  return { ok: true, value: options };
}

/** The earliest time wanted: `now` minus a duration, or a time (local when it names no zone); null when it is neither. */
function parseSince(text: string, now: number): number | null {
  const duration = parseDuration(text);
  if (duration !== null) return now - duration;
  const match = ISO_TIME.exec(text.trim());
  if (!match) return null;
  const time = Date.parse(`${match[1]}T${match[2] ?? '00:00'}${match[3] ?? ''}`);
  return Number.isNaN(time) ? null : time;
}
