#!/usr/bin/env node

// apps/server/src/main.ts
import "reflect-metadata";

// apps/server/src/config/config-error.ts
var ConfigError = class extends Error {
  name = "ConfigError";
};

// apps/server/src/config/load-settings.ts
import { isAbsolute, relative, resolve } from "node:path";

// apps/server/src/config/config-file.ts
import { readFileSync } from "node:fs";
import { parse, TomlError } from "smol-toml";
function readConfigFile(path, label2) {
  let text;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { found: false };
    throw new ConfigError(`${label2}: cannot read config file (${errorCode(error) ?? String(error)})`);
  }
  try {
    return { found: true, document: parse(text) };
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = (error.message.split("\n")[0] ?? "").replace(/^Invalid TOML document:\s*/, "");
    throw new ConfigError(`${label2}: invalid TOML at line ${error.line}, column ${error.column}: ${reason}`);
  }
}
function errorCode(error) {
  return error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : void 0;
}

// apps/server/src/config/config-flags.ts
var flagFields = /* @__PURE__ */ new Map([
  ["--config", "config"],
  ["--data-dir", "dataDir"],
  ["--host", "host"],
  ["--port", "port"]
]);
function parseConfigFlags(argv) {
  const flags = {};
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    const equals = arg.indexOf("=");
    const name = equals === -1 ? arg : arg.slice(0, equals);
    const field = flagFields.get(name);
    if (field === void 0) {
      rest.push(arg);
      continue;
    }
    let value;
    if (equals !== -1) value = arg.slice(equals + 1);
    else {
      value = argv[i + 1];
      if (value !== void 0 && !value.startsWith("--")) i++;
      else value = void 0;
    }
    if (value === void 0 || value === "") throw new ConfigError(`${name}: missing value`);
    flags[field] = value;
  }
  return { flags, rest };
}

// apps/server/src/config/default-settings.ts
var defaultSettings = Object.freeze({
  enabled: true,
  host: ["127.0.0.1", "::1"],
  port: 8001,
  secureCookie: false,
  trustedProxies: [],
  allowedIps: [],
  secretKey: void 0,
  sessionExpireDays: 7,
  mode: "production",
  allowedOrigins: [],
  allowedHosts: [],
  logLevel: "info"
});
var defaultConfigPath = "config/bot_config.toml";
var defaultDataDir = "./data";

// apps/server/src/config/setting-schemas.ts
import * as v4 from "valibot";

// apps/server/src/config/integer-range-schema.ts
import * as v from "valibot";

// apps/server/src/config/received-value.ts
function describeReceived(value) {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (Array.isArray(value)) return `[${value.map(describeReceived).join(", ")}]`;
  if (value instanceof Date) return "a date";
  if (value === void 0 || value === null) return "nothing";
  return "a table";
}

// apps/server/src/config/integer-range-schema.ts
var rangeMessage = (min, max) => (issue) => `must be an integer from ${min} to ${max}, got ${describeReceived(issue.input)}`;
function integerRangeSchema(min, max) {
  const message = rangeMessage(min, max);
  return v.pipe(v.number(message), v.integer(message), v.minValue(min, message), v.maxValue(max, message));
}
function integerTextSchema(min, max) {
  const message = rangeMessage(min, max);
  return v.pipe(
    v.string(message),
    // Checked on the text so the message quotes what the operator typed.
    v.check((text) => /^\d{1,9}$/.test(text) && Number(text) >= min && Number(text) <= max, message),
    v.transform(Number)
  );
}

// packages/core/src/ip-address.ts
function parseIp(text) {
  const trimmed = text.trim().replace(/^\[(.*)\]$/, "$1").replace(/%[\w.-]+$/, "");
  if (trimmed.includes(":")) return parseIpv6(trimmed);
  const bytes = parseIpv4Bytes(trimmed);
  return bytes ? { version: 4, bytes } : null;
}
function parseIpv4Bytes(text) {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i];
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return null;
    const value = Number(part);
    if (value > 255) return null;
    bytes[i] = value;
  }
  return bytes;
}
function parseIpv6(text) {
  let head = text;
  let tailV4 = null;
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    tailV4 = parseIpv4Bytes(text.slice(lastColon + 1));
    if (!tailV4) return null;
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split("::");
  if (halves.length > 2) return null;
  const parseGroups = (part) => {
    if (part === "") return [];
    const groups2 = part.split(":");
    const values = [];
    for (const group of groups2) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
      values.push(parseInt(group, 16));
    }
    return values;
  };
  const left = parseGroups(halves[0]);
  const right = halves.length === 2 ? parseGroups(halves[1]) : [];
  if (!left || !right) return null;
  const missing = 8 - left.length - right.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...left, ...new Array(missing).fill(0), ...right];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 255;
  });
  if (tailV4) bytes.set(tailV4, 12);
  const isV4Mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 255 && bytes[11] === 255;
  return isV4Mapped ? { version: 4, bytes: bytes.slice(12) } : { version: 6, bytes };
}
function formatIp(ip) {
  if (ip.version === 4) return Array.from(ip.bytes).join(".");
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push((ip.bytes[i] << 8 | ip.bytes[i + 1]).toString(16));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== "0") {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  if (bestStart < 0) return groups.join(":");
  return `${groups.slice(0, bestStart).join(":")}::${groups.slice(bestStart + bestLength).join(":")}`;
}
function clientKey(ip) {
  if (ip.version === 4) return formatIp(ip);
  const prefix = new Uint8Array(16);
  prefix.set(ip.bytes.slice(0, 8));
  return `${formatIp({ version: 6, bytes: prefix })}/64`;
}

// packages/core/src/ban-policy.ts
var DEFAULT_BAN_POLICY = {
  windowMs: 5 * 6e4,
  threshold: 5,
  banMs: 10 * 6e4,
  reminderAt: 2
};
var BanPolicy = class {
  constructor(store, clock, options = {}) {
    this.store = store;
    this.clock = clock;
    this.options = { ...DEFAULT_BAN_POLICY, ...options };
  }
  options;
  // Read-modify-write of attempt records runs one at a time, so concurrent guesses cannot overwrite each other's count.
  queue = Promise.resolve();
  async status(clientIp) {
    const record = await this.store.readAttempts(keyOf(clientIp));
    return this.banStatus(record, this.clock.now());
  }
  /**
   * Counts a failed verification. A wrong cookie value is counted once per window, so a stale
   * cookie polled every second does not ban its owner while every distinct guess still counts.
   */
  recordFailure(clientIp, failure = {}) {
    return this.serialised(() => this.countFailure(clientIp, failure));
  }
  async countFailure(clientIp, failure) {
    const key = keyOf(clientIp);
    const now = this.clock.now();
    const record = await this.store.readAttempts(key) ?? { failures: [] };
    const ban = this.banStatus(record, now);
    if (ban.banned) return { ...ban, justBanned: false };
    const failures = record.failures.filter((entry) => entry.at > now - this.options.windowMs);
    const repeated = failure.cookie !== void 0 && failures.some((entry) => entry.cookie === failure.cookie);
    if (!repeated) failures.push(failure.cookie === void 0 ? { at: now } : { at: now, cookie: failure.cookie });
    if (failures.length >= this.options.threshold) {
      const bannedUntil = now + this.options.banMs;
      await this.store.writeAttempts(key, { failures: [], bannedUntil }, bannedUntil);
      return { banned: true, retryAfterSeconds: Math.ceil(this.options.banMs / 1e3), justBanned: true };
    }
    const newest = failures[failures.length - 1]?.at ?? now;
    await this.store.writeAttempts(key, { failures }, newest + this.options.windowMs);
    const remainingAttempts = this.options.threshold - failures.length;
    return { banned: false, remainingAttempts, remind: remainingAttempts <= this.options.reminderAt, counted: !repeated };
  }
  /** A successful verification clears the count; a running ban ends only when its time is up. */
  recordSuccess(clientIp) {
    return this.serialised(async () => {
      const key = keyOf(clientIp);
      if (!this.banStatus(await this.store.readAttempts(key), this.clock.now()).banned) await this.store.deleteAttempts(key);
    });
  }
  serialised(work) {
    const run = this.queue.then(work);
    this.queue = run.catch(() => void 0);
    return run;
  }
  banStatus(record, now) {
    if (record?.bannedUntil === void 0 || record.bannedUntil <= now) return { banned: false };
    return { banned: true, retryAfterSeconds: Math.ceil((record.bannedUntil - now) / 1e3) };
  }
};
function keyOf(clientIp) {
  const ip = parseIp(clientIp);
  return ip ? clientKey(ip) : clientIp;
}

// packages/core/src/constant-time-equal.ts
function constantTimeEqual(presented, secret) {
  let difference = presented.length ^ secret.length;
  const reference = secret.length > 0 ? secret : "\0";
  if (secret.length === 0) difference |= 1;
  for (let i = 0; i < presented.length; i++) {
    difference |= presented.charCodeAt(i) ^ reference.charCodeAt(i % reference.length);
  }
  return difference === 0;
}

// packages/core/src/random-encoding.ts
var BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
function randomHex(random, byteCount) {
  let hex = "";
  for (const byte of random.bytes(byteCount)) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
function randomBase64Url(random, byteCount) {
  const bytes = random.bytes(byteCount);
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const b0 = bytes[i];
    const b1 = bytes[i + 1];
    const b2 = bytes[i + 2];
    out += BASE64URL[b0 >> 2];
    out += BASE64URL[(b0 & 3) << 4 | (b1 ?? 0) >> 4];
    if (b1 !== void 0) out += BASE64URL[(b1 & 15) << 2 | (b2 ?? 0) >> 6];
    if (b2 !== void 0) out += BASE64URL[b2 & 63];
  }
  return out;
}

// packages/core/src/record-editor.ts
var RecordEditor = class {
  constructor(store) {
    this.store = store;
  }
  queue = Promise.resolve();
  async read() {
    return requireRecord(await this.store.readRecord());
  }
  /** Runs `change` on the current record; when it returns a record, that record is written. */
  edit(change) {
    const run = this.queue.then(async () => {
      const { next, result: result2 } = change(await this.store.readRecord());
      if (next) await this.store.writeRecord(next);
      return result2;
    });
    this.queue = run.catch(() => void 0);
    return run;
  }
};
function requireRecord(record) {
  if (!record) throw new Error("the token record is missing: TokenService.bootstrap() must run first");
  return record;
}

// packages/core/src/result.ts
var ok = (value) => ({ ok: true, value });
var err = (error) => ({ ok: false, error });

// packages/core/src/token-source.ts
var GENERATED_TOKEN = /^[0-9a-f]{64}$/;
function resolveTokenSource(record) {
  if (record.tokenSource) return record.tokenSource;
  return GENERATED_TOKEN.test(record.accessToken) ? "temporary" : "configured";
}

// packages/core/src/token-strength.ts
var TOKEN_SPECIAL_CHARACTERS = "!@#$%^&*()_+-=[]{}|;:,.<>?/";
var TOKEN_MIN_LENGTH = 10;
var TOKEN_MAX_LENGTH = 512;
var TOKEN_VIOLATION_MESSAGES = {
  too_short: `at least ${TOKEN_MIN_LENGTH} characters`,
  too_long: `at most ${TOKEN_MAX_LENGTH} characters`,
  missing_uppercase: "an uppercase letter (A-Z)",
  missing_lowercase: "a lowercase letter (a-z)",
  missing_special: `a special character from ${TOKEN_SPECIAL_CHARACTERS}`,
  invalid_characters: "printable ASCII only, without spaces",
  same_as_current: "a value different from the current token"
};
function tokenViolations(candidate) {
  const violations = [];
  if (candidate.length < TOKEN_MIN_LENGTH) violations.push("too_short");
  if (candidate.length > TOKEN_MAX_LENGTH) violations.push("too_long");
  if (!/[A-Z]/.test(candidate)) violations.push("missing_uppercase");
  if (!/[a-z]/.test(candidate)) violations.push("missing_lowercase");
  if (![...candidate].some((ch) => TOKEN_SPECIAL_CHARACTERS.includes(ch))) violations.push("missing_special");
  if (!/^[\x21-\x7e]*$/.test(candidate)) violations.push("invalid_characters");
  return violations;
}

// packages/core/src/token-service.ts
var TokenService = class {
  constructor(store, editor, random) {
    this.store = store;
    this.editor = editor;
    this.random = random;
  }
  listeners = /* @__PURE__ */ new Set();
  /**
   * Runs once at startup: no record -> a temporary token; a temporary record -> a fresh one;
   * a changed secret-key fingerprint -> a fresh temporary token, revoking every session (DESIGN D10).
   */
  bootstrap(options = {}) {
    const fingerprint = options.secretKeyFingerprint;
    return this.editor.edit((current) => {
      const keyChanged = current !== null && current.secretKeyFingerprint !== void 0 && current.secretKeyFingerprint !== fingerprint;
      const reason = !current ? "created" : keyChanged ? "secret_key_changed" : resolveTokenSource(current) === "temporary" ? "temporary_renewed" : "kept";
      if (reason === "kept" && current) {
        const next2 = { ...current, tokenSource: "configured", ...fingerprintField(fingerprint) };
        const changed = current.tokenSource !== "configured" || current.secretKeyFingerprint !== fingerprint;
        return { next: changed ? next2 : null, result: { reason, temporaryToken: null, ...status("configured") } };
      }
      const temporaryToken = this.generate();
      const next = {
        ...current,
        accessToken: temporaryToken,
        tokenSource: "temporary",
        firstSetupCompleted: current?.firstSetupCompleted ?? false,
        ...fingerprintField(fingerprint)
      };
      if (!fingerprint) delete next.secretKeyFingerprint;
      return { next, result: { reason, temporaryToken, ...status("temporary") } };
    });
  }
  /** Whether `candidate` is the access token, compared in constant time. */
  async verify(candidate) {
    const record = await this.store.readRecord();
    return record !== null && constantTimeEqual(candidate, record.accessToken);
  }
  async status() {
    return status(resolveTokenSource(await this.editor.read()));
  }
  /** Replaces the token with a custom one that meets every strength rule (DESIGN D5). */
  async update(newToken) {
    const result2 = await this.editor.edit((current) => {
      const record = requireRecord(current);
      const violations = tokenViolations(newToken);
      if (constantTimeEqual(newToken, record.accessToken)) violations.push("same_as_current");
      if (violations.length > 0) return { next: null, result: err({ code: "weak_token", violations }) };
      const rotated = rotation(record, newToken);
      return { next: rotated.next, result: ok(rotated.outcome) };
    });
    if (result2.ok) await this.afterRotation(result2.value);
    return result2;
  }
  /** Replaces the token with 64 random hex characters, returned once. */
  async regenerate() {
    const outcome = await this.editor.edit((current) => {
      const rotated = rotation(requireRecord(current), this.generate());
      return { next: rotated.next, result: rotated.outcome };
    });
    await this.afterRotation(outcome);
    return outcome;
  }
  /** Called after every rotation with the token that stopped being valid. */
  onTokenChanged(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  async afterRotation(outcome) {
    await this.store.revokeTickets(outcome.previousToken);
    for (const listener of this.listeners) listener(outcome.previousToken);
  }
  generate() {
    return randomHex(this.random, 32);
  }
};
function rotation(current, token) {
  const next = { ...current, accessToken: token, tokenSource: "configured" };
  return { next, outcome: { token, previousToken: current.accessToken, ...status("configured") } };
}
function status(tokenSource) {
  return { tokenSource, requiresCustomToken: tokenSource === "temporary" };
}
function fingerprintField(fingerprint) {
  return fingerprint ? { secretKeyFingerprint: fingerprint } : {};
}

// packages/core/src/setup-state.ts
var SetupState = class {
  constructor(editor) {
    this.editor = editor;
  }
  async isFirstSetup() {
    return !(await this.editor.read()).firstSetupCompleted;
  }
  /** Marks first setup done; returns the new `is_first_setup` (false). */
  complete() {
    return this.setCompleted(true);
  }
  /** Opens the wizard again (migration, debugging); returns the new `is_first_setup` (true). */
  reset() {
    return this.setCompleted(false);
  }
  setCompleted(completed) {
    return this.editor.edit((current) => {
      const record = requireRecord(current);
      return { next: record.firstSetupCompleted === completed ? null : { ...record, firstSetupCompleted: completed }, result: !completed };
    });
  }
};

// packages/core/src/ws-ticket-issuer.ts
var TICKET_TTL_SECONDS = 60;
var WsTicketIssuer = class {
  constructor(store, tokens, clock, random) {
    this.store = store;
    this.tokens = tokens;
    this.clock = clock;
    this.random = random;
  }
  async issue(sessionToken) {
    if (!await this.tokens.verify(sessionToken)) return err("invalid_session");
    const ticket = randomBase64Url(this.random, 32);
    await this.store.putTicket(ticket, { sessionToken, expiresAt: this.clock.now() + TICKET_TTL_SECONDS * 1e3 });
    return ok({ ticket, expiresIn: TICKET_TTL_SECONDS });
  }
  /** Spends a ticket; it is gone afterwards whatever the outcome, so it can never be replayed. */
  async redeem(ticket) {
    const grant = await this.store.consumeTicket(ticket);
    if (!grant) return err("unknown_ticket");
    if (this.clock.now() >= grant.expiresAt) return err("expired_ticket");
    if (!await this.tokens.verify(grant.sessionToken)) return err("session_revoked");
    return ok({ sessionToken: grant.sessionToken });
  }
};

// packages/core/src/memory-store.ts
var DEFAULT_MEMORY_STORE_LIMITS = {
  maxAttemptKeys: 1e5,
  maxTickets: 1e4,
  maxTicketsPerSession: 256
};
var MemoryStore = class {
  constructor(clock, options = {}) {
    this.clock = clock;
    this.record = options.record ? { ...options.record } : null;
    this.limits = { ...DEFAULT_MEMORY_STORE_LIMITS, ...options.limits };
  }
  record;
  attempts = /* @__PURE__ */ new Map();
  tickets = /* @__PURE__ */ new Map();
  ticketsBySession = /* @__PURE__ */ new Map();
  limits;
  async readRecord() {
    return this.record ? { ...this.record } : null;
  }
  async writeRecord(record) {
    this.record = { ...record };
  }
  async readAttempts(key) {
    const entry = this.attempts.get(key);
    if (!entry) return null;
    if (entry.expiresAt <= this.clock.now()) {
      this.attempts.delete(key);
      return null;
    }
    return structuredCopy(entry.value);
  }
  async writeAttempts(key, record, expiresAt) {
    this.attempts.delete(key);
    if (this.attempts.size >= this.limits.maxAttemptKeys) this.evictAttempts();
    this.attempts.set(key, { value: structuredCopy(record), expiresAt });
  }
  async deleteAttempts(key) {
    this.attempts.delete(key);
  }
  async putTicket(ticket, grant) {
    let sessionTickets = this.ticketsBySession.get(grant.sessionToken);
    if (!sessionTickets) {
      sessionTickets = /* @__PURE__ */ new Set();
      this.ticketsBySession.set(grant.sessionToken, sessionTickets);
    }
    if (sessionTickets.size >= this.limits.maxTicketsPerSession) {
      this.dropTicket(sessionTickets.values().next().value);
    }
    if (this.tickets.size >= this.limits.maxTickets) {
      this.sweepExpiredTickets();
      if (this.tickets.size >= this.limits.maxTickets) this.dropTicket(this.tickets.keys().next().value);
    }
    this.tickets.set(ticket, { ...grant });
    const current = this.ticketsBySession.get(grant.sessionToken) ?? /* @__PURE__ */ new Set();
    current.add(ticket);
    this.ticketsBySession.set(grant.sessionToken, current);
  }
  async consumeTicket(ticket) {
    const grant = this.tickets.get(ticket);
    if (!grant) return null;
    this.dropTicket(ticket);
    return grant;
  }
  async revokeTickets(sessionToken) {
    for (const ticket of [...this.ticketsBySession.get(sessionToken) ?? []]) this.dropTicket(ticket);
  }
  /** Drops expired tickets and attempt records; a server calls it on a timer. */
  sweep() {
    this.sweepExpiredTickets();
    const now = this.clock.now();
    for (const [key, entry] of this.attempts) if (entry.expiresAt <= now) this.attempts.delete(key);
  }
  /** Sizes, for tests and the memory benchmark. */
  get size() {
    return { attempts: this.attempts.size, tickets: this.tickets.size };
  }
  sweepExpiredTickets() {
    const now = this.clock.now();
    for (const [ticket, grant] of this.tickets) if (grant.expiresAt <= now) this.dropTicket(ticket);
  }
  evictAttempts() {
    const now = this.clock.now();
    for (const [key, entry] of this.attempts) {
      if (entry.expiresAt <= now || entry.value.bannedUntil === void 0 || entry.value.bannedUntil <= now) {
        this.attempts.delete(key);
        return;
      }
    }
    this.attempts.delete(this.attempts.keys().next().value);
  }
  dropTicket(ticket) {
    const grant = this.tickets.get(ticket);
    if (!grant) return;
    this.tickets.delete(ticket);
    const sessionTickets = this.ticketsBySession.get(grant.sessionToken);
    sessionTickets?.delete(ticket);
    if (sessionTickets?.size === 0) this.ticketsBySession.delete(grant.sessionToken);
  }
};
function structuredCopy(record) {
  return { failures: record.failures.map((failure) => ({ ...failure })), ...record.bannedUntil !== void 0 ? { bannedUntil: record.bannedUntil } : {} };
}

// packages/core/src/cidr.ts
function parseCidr(text) {
  const [address, prefix, ...rest] = text.trim().split("/");
  if (rest.length > 0 || address === void 0) return null;
  const network = parseIp(address);
  if (!network) return null;
  const maxLength = network.bytes.length * 8;
  if (prefix === void 0) return { network, prefixLength: maxLength };
  if (!/^\d{1,3}$/.test(prefix)) return null;
  let prefixLength = Number(prefix);
  if (network.version === 4 && address.includes(":")) prefixLength -= 96;
  if (prefixLength < 0 || prefixLength > maxLength) return null;
  return { network, prefixLength };
}
function cidrContains(cidr, ip) {
  if (cidr.network.version !== ip.version) return false;
  let remaining = cidr.prefixLength;
  for (let i = 0; remaining > 0; i++, remaining -= 8) {
    const mask = remaining >= 8 ? 255 : 255 << 8 - remaining & 255;
    if ((cidr.network.bytes[i] & mask) !== (ip.bytes[i] & mask)) return false;
  }
  return true;
}
function anyCidrContains(cidrs, ip) {
  return cidrs.some((cidr) => cidrContains(cidr, ip));
}

// apps/server/src/config/list-entry-schemas.ts
import * as v2 from "valibot";

// apps/server/src/config/host-name.ts
var label = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
var hostNamePattern = new RegExp(`^${label}(?:\\.${label})*\\.?$`, "i");
function isHostName(text) {
  if (text.length > 253) return false;
  if (/^[\d.]+$/.test(text)) return parseIp(text) !== null;
  return hostNamePattern.test(text);
}

// apps/server/src/config/allowed-host.ts
function isAllowedHost(text) {
  const match = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(text);
  if (!match) return false;
  const [, host = "", port] = match;
  if (port !== void 0 && Number(port) > 65535) return false;
  return host.startsWith("[") ? parseIp(host)?.version === 6 : isHostName(host);
}

// apps/server/src/config/origin.ts
function parseOrigin(text) {
  if (!/^https?:\/\/[^/]/i.test(text) || !URL.canParse(text)) return null;
  const url = new URL(text);
  if (url.username !== "" || url.password !== "" || url.pathname !== "/" || url.search !== "" || url.hash !== "") return null;
  if (text.includes("?") || text.includes("#")) return null;
  return url.origin;
}

// apps/server/src/config/list-entry-schemas.ts
var rejectEntry = (entry, what) => `entry ${JSON.stringify(entry)} is not ${what}`;
var hostEntrySchema = v2.pipe(
  v2.string(),
  v2.check(
    (text) => !text.includes("[") && parseIp(text) !== null || isHostName(text),
    (issue) => rejectEntry(issue.input, "an IP address or host name")
  )
);
var networkEntrySchema = v2.pipe(
  v2.string(),
  v2.check((text) => parseCidr(text) !== null, (issue) => rejectEntry(issue.input, "an IP address or CIDR"))
);
var originEntrySchema = v2.pipe(
  v2.string(),
  v2.rawTransform(({ dataset, addIssue, NEVER }) => {
    const origin = parseOrigin(dataset.value);
    if (origin !== null) return origin;
    addIssue({ message: rejectEntry(dataset.value, "an origin like http://localhost:5173 (scheme://host[:port], no path)") });
    return NEVER;
  })
);
var allowedHostEntrySchema = v2.pipe(
  v2.string(),
  v2.check(isAllowedHost, (issue) => rejectEntry(issue.input, "a host name with optional :port")),
  v2.toLowerCase()
);

// apps/server/src/config/list-schema.ts
import * as v3 from "valibot";
var listMessage = (issue) => `must be a list of strings or a comma-separated string, got ${describeReceived(issue.input)}`;
function listSchema(entry) {
  return v3.pipe(v3.union([v3.array(v3.string()), v3.string()], listMessage), v3.transform(toEntries), v3.array(entry));
}
function toEntries(value) {
  const parts = typeof value === "string" ? value.split(",") : value;
  return parts.map((part) => part.trim()).filter((part) => part !== "");
}

// apps/server/src/config/setting-schemas.ts
var got = (issue) => `got ${describeReceived(issue.input)}`;
var booleanSchema = v4.boolean((issue) => `must be true or false, ${got(issue)}`);
var hostListSchema = v4.pipe(listSchema(hostEntrySchema), v4.minLength(1, "must list at least one address"));
var portSchema = integerRangeSchema(0, 65535);
var portTextSchema = integerTextSchema(0, 65535);
var networkListSchema = listSchema(networkEntrySchema);
var secretKeyMessage = "must be a non-empty string";
var secretKeySchema = v4.pipe(v4.string(secretKeyMessage), v4.check((text) => text.trim() !== "", secretKeyMessage));
var sessionExpireSchema = integerRangeSchema(1, 365);
var modeSchema = v4.picklist(["production", "development"], (issue) => `must be "production" or "development", ${got(issue)}`);
var originListSchema = listSchema(originEntrySchema);
var allowedHostListSchema = listSchema(allowedHostEntrySchema);
var logLevels = ["fatal", "error", "warn", "info", "debug", "trace"];
var logLevelSchema = v4.picklist(logLevels, (issue) => `must be one of ${logLevels.join(", ")}, ${got(issue)}`);

// apps/server/src/config/settings.ts
var settingFileKeys = {
  enabled: "enabled",
  host: "host",
  port: "port",
  secureCookie: "secure_cookie",
  trustedProxies: "trusted_proxies",
  allowedIps: "allowed_ips",
  secretKey: "secret_key",
  sessionExpireDays: "session_expire",
  mode: "mode",
  allowedOrigins: "allowed_origins",
  allowedHosts: "allowed_hosts",
  logLevel: "log_level"
};
var settingNames = Object.keys(settingFileKeys);

// apps/server/src/config/text-setting.ts
import * as v5 from "valibot";
function readTextSetting(schema, text, label2) {
  if (text === void 0) return void 0;
  const result2 = v5.safeParse(schema, text, { abortEarly: true });
  if (result2.success) return result2.output;
  throw new ConfigError(`${label2}: ${result2.issues[0].message}`);
}

// apps/server/src/config/webui-table.ts
import * as v6 from "valibot";
var webuiTableSchema = v6.pipe(
  v6.strictObject(
    {
      enabled: v6.optional(booleanSchema),
      host: v6.optional(hostListSchema),
      port: v6.optional(portSchema),
      secure_cookie: v6.optional(booleanSchema),
      trusted_proxies: v6.optional(networkListSchema),
      allowed_ips: v6.optional(networkListSchema),
      secret_key: v6.optional(secretKeySchema),
      session_expire: v6.optional(sessionExpireSchema),
      mode: v6.optional(modeSchema),
      allowed_origins: v6.optional(originListSchema),
      allowed_hosts: v6.optional(allowedHostListSchema),
      log_level: v6.optional(logLevelSchema)
    },
    (issue) => issue.expected === "never" ? `unknown key webui.${String(issue.input)}` : `webui must be a table, got ${describeReceived(issue.input)}`
  ),
  v6.transform(
    (table) => ({
      enabled: table.enabled,
      host: table.host,
      port: table.port,
      secureCookie: table.secure_cookie,
      trustedProxies: table.trusted_proxies,
      allowedIps: table.allowed_ips,
      secretKey: table.secret_key,
      sessionExpireDays: table.session_expire,
      mode: table.mode,
      allowedOrigins: table.allowed_origins,
      allowedHosts: table.allowed_hosts,
      logLevel: table.log_level
    })
  )
);
function readWebuiTable(document, fileLabel) {
  if (!Object.hasOwn(document, "webui")) return {};
  const result2 = v6.safeParse(webuiTableSchema, document["webui"], { abortEarly: true });
  if (result2.success) return result2.output;
  const [issue] = result2.issues;
  const key = issue.path?.[0];
  const message = key?.origin === "value" ? `webui.${String(key.key)} ${issue.message}` : issue.message;
  throw new ConfigError(`${fileLabel}: ${message}`);
}

// apps/server/src/config/load-settings.ts
function loadSettings(input) {
  const { flags } = parseConfigFlags(input.argv);
  const env = (name) => input.env[name] === "" ? void 0 : input.env[name];
  const config = pickPath(flags.config, env("WEBUI_CONFIG"), defaultConfigPath);
  const dataDir = pickPath(flags.dataDir, env("WEBUI_DATA_DIR"), defaultDataDir);
  const configPath = resolve(input.cwd, config.value);
  const fileLabel = labelOf(configPath, input.cwd);
  const file = readConfigFile(configPath, fileLabel);
  if (!file.found && config.source !== "default") {
    const origin = config.source === "flag" ? "--config" : "WEBUI_CONFIG";
    throw new ConfigError(`${origin}: config file ${fileLabel} does not exist`);
  }
  const layers = [
    ["flag", { host: readTextSetting(hostListSchema, flags.host, "--host"), port: readTextSetting(portTextSchema, flags.port, "--port") }],
    ["env", { host: readTextSetting(hostListSchema, env("WEBUI_HOST"), "WEBUI_HOST"), port: readTextSetting(portTextSchema, env("WEBUI_PORT"), "WEBUI_PORT") }],
    ["file", file.found ? readWebuiTable(file.document, fileLabel) : {}]
  ];
  const settings = { ...defaultSettings };
  const sources = { configPath: config.source, dataDir: dataDir.source };
  for (const name of settingNames) sources[name] = applyFirstGiven(name, layers, settings);
  return { settings, dataDir: resolve(input.cwd, dataDir.value), configPath, configFileFound: file.found, sources };
}
function pickPath(flag, env, fallback) {
  if (flag !== void 0) return { value: flag, source: "flag" };
  if (env !== void 0) return { value: env, source: "env" };
  return { value: fallback, source: "default" };
}
function applyFirstGiven(name, layers, settings) {
  for (const [source, values] of layers) {
    const value = values[name];
    if (value !== void 0) {
      settings[name] = value;
      return source;
    }
  }
  return "default";
}
function labelOf(path, cwd) {
  const fromCwd = relative(cwd, path);
  return fromCwd !== "" && !fromCwd.startsWith("..") && !isAbsolute(fromCwd) ? fromCwd : path;
}

// apps/server/src/serve.ts
import { getConnInfo } from "@hono/node-server/conninfo";

// packages/http-hono/src/create-webui-app.ts
import { Hono as Hono6 } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";

// packages/http-hono/src/allowed-origins.ts
function isAllowedOrigin(origin, c, policy) {
  const normalised = origin.toLowerCase();
  const host = c.req.header("host");
  if (host && normalised === `${c.get("secureTransport") ? "https" : "http"}://${host.toLowerCase()}`) return true;
  if (policy.listenOrigins().some((allowed) => allowed.toLowerCase() === normalised)) return true;
  return policy.allowedOrigins.some((allowed) => allowed.toLowerCase() === normalised);
}

// packages/http-hono/src/error-body.ts
function errorBody(c, status2, code, detail, extra = {}) {
  return c.json({ ...extra, detail, code }, status2);
}
function tooManyAttempts(c, retryAfterSeconds, extra = {}) {
  c.header("Retry-After", String(retryAfterSeconds));
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return errorBody(c, 429, "too_many_attempts", `Too many failed attempts from this address; try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`, {
    ...extra,
    retry_after: retryAfterSeconds
  });
}

// packages/http-hono/src/client-ip.ts
function resolveClient(peerAddress, headers, trustedProxies) {
  const peer = peerAddress === void 0 ? null : parseIp(peerAddress);
  if (!peer) return { ip: peerAddress ?? "unknown", forwardedHttps: false };
  if (!anyCidrContains(trustedProxies, peer)) return { ip: formatIp(peer), forwardedHttps: false };
  const proto = headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  const forwardedHttps = proto === "https";
  const chain = (headers.get("x-forwarded-for") ?? headers.get("x-real-ip") ?? "").split(",").map((entry) => entry.trim()).filter((entry) => entry !== "");
  let client = peer;
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = parseIp(chain[i]);
    if (!hop) break;
    client = hop;
    if (!anyCidrContains(trustedProxies, hop)) break;
  }
  return { ip: formatIp(client), forwardedHttps };
}

// packages/http-hono/src/middleware/client-context.ts
function clientContext(policy, connection) {
  return async (c, next) => {
    const client = resolveClient(connection.peerAddress(c), c.req.raw.headers, policy.trustedProxies);
    c.set("clientIp", client.ip);
    c.set("secureTransport", connection.isTls(c) || client.forwardedHttps);
    await next();
  };
}

// packages/http-hono/src/middleware/host-guard.ts
function hostGuard(policy) {
  return async (c, next) => {
    if (policy.loopbackOnly) {
      const host = c.req.header("host") ?? "";
      if (!isLoopbackHost(host) && !isListed(host, policy.allowedHosts)) {
        return errorBody(c, 403, "host_not_allowed", "This Host is not served; add it to webui.allowed_hosts if a proxy forwards it.");
      }
    }
    await next();
  };
}
function hostname(host) {
  const trimmed = host.trim().toLowerCase();
  if (trimmed.startsWith("[")) return trimmed.slice(0, trimmed.indexOf("]") + 1);
  const colon = trimmed.lastIndexOf(":");
  return colon >= 0 && !trimmed.slice(0, colon).includes(":") ? trimmed.slice(0, colon) : trimmed;
}
function isLoopbackHost(host) {
  const name = hostname(host);
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  const ip = parseIp(name);
  if (!ip) return false;
  return ip.version === 4 ? ip.bytes[0] === 127 : ip.bytes.every((b, i) => b === (i === 15 ? 1 : 0));
}
function isListed(host, allowedHosts) {
  const full = host.trim().toLowerCase();
  const name = hostname(host);
  return allowedHosts.some((allowed) => {
    const entry = allowed.toLowerCase();
    return entry === full || entry === name;
  });
}

// packages/http-hono/src/middleware/ip-allowlist.ts
function ipAllowlist(policy) {
  return async (c, next) => {
    if (policy.allowedIps.length > 0) {
      const ip = parseIp(c.get("clientIp"));
      if (!ip || !anyCidrContains(policy.allowedIps, ip)) {
        return errorBody(c, 403, "ip_not_allowed", "This address is not in webui.allowed_ips.");
      }
    }
    await next();
  };
}

// packages/http-hono/src/middleware/origin-guard.ts
var SAFE_METHODS = /* @__PURE__ */ new Set(["GET", "HEAD", "OPTIONS"]);
function originGuard(policy) {
  return async (c, next) => {
    const origin = c.req.header("origin");
    if (!SAFE_METHODS.has(c.req.method) && origin !== void 0 && !isAllowedOrigin(origin, c, policy)) {
      return errorBody(c, 403, "origin_not_allowed", `Requests from origin ${JSON.stringify(origin.slice(0, 200))} are not allowed; add it to webui.allowed_origins.`);
    }
    await next();
  };
}

// packages/http-hono/src/middleware/request-log.ts
function requestLog(logger, now) {
  return async (c, next) => {
    const started = now();
    await next();
    logger.debug({ method: c.req.method, path: c.req.path, status: c.res.status, ms: now() - started, ip: c.get("clientIp") }, "request");
  };
}

// packages/http-hono/src/session-cookie.ts
import { deleteCookie, setCookie } from "hono/cookie";
var SESSION_COOKIE = "bot_session";
function sessionCookieCandidates(c) {
  const header = c.req.header("cookie");
  if (!header) return [];
  const cookies = [];
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq < 0 || pair.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    let raw = pair.slice(eq + 1).trim();
    if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) raw = raw.slice(1, -1);
    const decoded = safeDecode(raw);
    cookies.push({ raw, tokens: decoded !== null && decoded !== raw ? [raw, decoded] : [raw] });
  }
  return cookies;
}
function safeDecode(value) {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}
var SessionCookie = class {
  constructor(policy, logger) {
    this.policy = policy;
    this.logger = logger;
  }
  warnedInsecure = false;
  issue(c, token) {
    setCookie(c, SESSION_COOKIE, token, { ...this.attributes(c), maxAge: this.policy.sessionExpireDays * 86400 });
  }
  clear(c) {
    deleteCookie(c, SESSION_COOKIE, this.attributes(c));
  }
  attributes(c) {
    const secure = this.policy.secureCookie || this.policy.mode === "production" && c.get("secureTransport");
    if (!secure && this.policy.mode === "production" && !this.warnedInsecure) {
      this.warnedInsecure = true;
      this.logger.warn({}, "session cookie sent without Secure: the request came over plain HTTP; serve the WebUI over HTTPS or set webui.secure_cookie");
    }
    return { path: "/", httpOnly: true, sameSite: "Lax", secure };
  }
};

// packages/http-hono/src/cookie-session.ts
async function readCookieSession(c, services, logger) {
  const cookies = sessionCookieCandidates(c);
  if (cookies.length === 0) return { kind: "none" };
  const clientIp = c.get("clientIp");
  const ban = await services.bans.status(clientIp);
  if (ban.banned) return { kind: "banned", retryAfterSeconds: ban.retryAfterSeconds };
  for (const cookie of cookies) {
    for (const candidate of cookie.tokens) {
      if (await services.tokens.verify(candidate)) return { kind: "valid", token: candidate };
    }
  }
  for (const raw of new Set(cookies.map((cookie) => cookie.raw))) {
    const outcome = await services.bans.recordFailure(clientIp, { cookie: raw });
    if (outcome.banned) {
      if (outcome.justBanned) logger.warn({ ip: clientIp, via: "cookie" }, "client banned after repeated failed verifications");
      return { kind: "banned", retryAfterSeconds: outcome.retryAfterSeconds };
    }
    if (outcome.counted) logger.info({ ip: clientIp, via: "cookie", remaining: outcome.remainingAttempts }, "session cookie rejected");
  }
  return { kind: "invalid" };
}

// packages/http-hono/src/middleware/session-guard.ts
function sessionGuard(services, logger, isPublic) {
  return async (c, next) => {
    if (isPublic(c.req.path)) return next();
    const session = await readCookieSession(c, services, logger);
    switch (session.kind) {
      case "valid":
        c.set("sessionToken", session.token);
        return next();
      case "banned":
        return tooManyAttempts(c, session.retryAfterSeconds);
      case "invalid":
        return errorBody(c, 401, "invalid_session", "The session is not valid (the token was changed or the cookie is wrong); log in again with POST /api/webui/auth/verify.");
      case "none":
        return errorBody(c, 401, "not_authenticated", "Login required: POST /api/webui/auth/verify with the access token first.");
    }
  };
}

// packages/http-hono/src/routes/auth.ts
import { Hono } from "hono";

// packages/http-hono/src/json-body.ts
import * as v7 from "valibot";
async function readJsonBody(c, schema) {
  const contentType = c.req.header("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(contentType)) {
    return { ok: false, response: errorBody(c, 415, "unsupported_media_type", "Send the body as JSON with Content-Type: application/json.") };
  }
  let data;
  try {
    data = JSON.parse(await c.req.text());
  } catch {
    return { ok: false, response: errorBody(c, 400, "invalid_json", "The request body is not valid JSON.") };
  }
  const parsed = v7.safeParse(schema, data);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const field = issue ? v7.getDotPath(issue) : null;
    const detail = field ? `Field "${field}": ${issue?.message}` : `Invalid body: ${issue?.message ?? "unexpected shape"}`;
    return { ok: false, response: errorBody(c, 422, "invalid_body", detail) };
  }
  return { ok: true, value: parsed.output };
}

// packages/http-hono/src/schemas.ts
import * as v8 from "valibot";
var VerifyRequest = v8.object({
  token: v8.string("token must be a string")
});
var UpdateTokenRequest = v8.object({
  new_token: v8.string("new_token must be a string")
});

// packages/http-hono/src/routes/auth.ts
var LOGOUT_MESSAGE = "\u5DF2\u6210\u529F\u767B\u51FA";
function authRoutes(services, cookie, logger) {
  const { tokens, setup, bans } = services;
  return new Hono().post("/auth/verify", async (c) => {
    const clientIp = c.get("clientIp");
    const ban = await bans.status(clientIp);
    if (ban.banned) return tooManyAttempts(c, ban.retryAfterSeconds, { valid: false, message: "Too many failed attempts; this address is blocked for now." });
    const body = await readJsonBody(c, VerifyRequest);
    if (!body.ok) return body.response;
    if (await tokens.verify(body.value.token)) {
      await bans.recordSuccess(clientIp);
      cookie.issue(c, body.value.token);
      const [status2, isFirstSetup] = await Promise.all([tokens.status(), setup.isFirstSetup()]);
      logger.info({ ip: clientIp, tokenSource: status2.tokenSource }, "login succeeded");
      return c.json({
        valid: true,
        message: "Token verified; logged in.",
        is_first_setup: isFirstSetup,
        token_source: status2.tokenSource,
        requires_custom_token: status2.requiresCustomToken
      });
    }
    const outcome = await bans.recordFailure(clientIp);
    if (outcome.banned) {
      logger.warn({ ip: clientIp, via: "verify", retryAfter: outcome.retryAfterSeconds }, "client banned after repeated failed verifications");
      return tooManyAttempts(c, outcome.retryAfterSeconds, { valid: false, message: "Too many failed attempts; this address is blocked for 10 minutes." });
    }
    logger.info({ ip: clientIp, remaining: outcome.remainingAttempts }, "login failed");
    if (outcome.remind) {
      const n = outcome.remainingAttempts;
      return c.json({
        valid: false,
        message: `Invalid token. ${n} attempt${n === 1 ? "" : "s"} left before this address is blocked for 10 minutes.`,
        remaining_attempts: n
      });
    }
    return c.json({ valid: false, message: "Invalid token." });
  }).get("/auth/check", async (c) => {
    const session = await readCookieSession(c, services, logger);
    if (session.kind === "banned") return tooManyAttempts(c, session.retryAfterSeconds, { authenticated: false });
    if (session.kind !== "valid") return c.json({ authenticated: false });
    const status2 = await tokens.status();
    return c.json({ authenticated: true, token_source: status2.tokenSource, requires_custom_token: status2.requiresCustomToken });
  }).post("/auth/update", async (c) => {
    const body = await readJsonBody(c, UpdateTokenRequest);
    if (!body.ok) return body.response;
    const result2 = await tokens.update(body.value.new_token);
    if (!result2.ok) {
      const rules = result2.error.violations.map((violation) => TOKEN_VIOLATION_MESSAGES[violation]);
      const message = `The new token needs ${rules.join("; ")}.`;
      return errorBody(c, 400, "weak_token", message, { success: false, message, violations: result2.error.violations });
    }
    cookie.clear(c);
    logger.info({ ip: c.get("clientIp"), tokenSource: "configured", how: "update" }, "access token changed");
    return c.json({ success: true, message: "Token updated. Log in again with the new token." });
  }).post("/auth/regenerate", async (c) => {
    const outcome = await tokens.regenerate();
    cookie.clear(c);
    logger.info({ ip: c.get("clientIp"), tokenSource: "configured", how: "regenerate" }, "access token changed");
    return c.json({ success: true, token: outcome.token, message: "New token generated. It is shown only in this response; log in again with it." });
  }).post("/auth/logout", (c) => {
    cookie.clear(c);
    return c.json({ success: true, message: LOGOUT_MESSAGE });
  });
}

// packages/http-hono/src/routes/health.ts
import { Hono as Hono2 } from "hono";
function healthRoutes(serviceName) {
  return new Hono2().get("/health", (c) => c.json({ status: "healthy", service: serviceName }));
}

// packages/http-hono/src/routes/setup.ts
import { Hono as Hono3 } from "hono";
function setupRoutes(services, logger) {
  const { tokens, setup } = services;
  return new Hono3().get("/setup/status", async (c) => {
    const [isFirstSetup, status2] = await Promise.all([setup.isFirstSetup(), tokens.status()]);
    return c.json({
      is_first_setup: isFirstSetup,
      token_source: status2.tokenSource,
      requires_custom_token: status2.requiresCustomToken,
      message: isFirstSetup ? "First setup is not completed yet." : "First setup is completed."
    });
  }).post("/setup/complete", async (c) => {
    const isFirstSetup = await setup.complete();
    logger.info({ ip: c.get("clientIp") }, "first setup completed");
    return c.json({ success: true, message: "First setup completed.", is_first_setup: isFirstSetup });
  }).post("/setup/reset", async (c) => {
    const isFirstSetup = await setup.reset();
    logger.info({ ip: c.get("clientIp") }, "first setup reset");
    return c.json({ success: true, message: "First setup reset; the setup wizard can be entered again.", is_first_setup: isFirstSetup });
  });
}

// packages/http-hono/src/routes/ws.ts
import { Hono as Hono4 } from "hono";
var REFUSALS = {
  unknown_ticket: "The ticket is unknown or was already used; get a new one from /api/webui/ws-token.",
  expired_ticket: "The ticket expired (tickets live 60 seconds); get a new one from /api/webui/ws-token.",
  session_revoked: "The session the ticket was issued from is no longer valid; log in again."
};
function wsRoutes(services, policy, hub, upgrade) {
  return new Hono4().get(
    "/ws",
    async (c, next) => {
      const origin = c.req.header("origin");
      if (origin !== void 0 && !isAllowedOrigin(origin, c, policy)) {
        return errorBody(c, 403, "origin_not_allowed", "WebSocket connections from this origin are not allowed.");
      }
      if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
        return errorBody(c, 426, "upgrade_required", "This endpoint only accepts WebSocket upgrades.");
      }
      const ticket = c.req.query("token");
      if (!ticket) return errorBody(c, 401, "missing_ticket", "Pass a ticket from /api/webui/ws-token as ?token=.");
      const redeemed = await services.tickets.redeem(ticket);
      if (!redeemed.ok) return errorBody(c, 401, redeemed.error, REFUSALS[redeemed.error]);
      if (!hub.canAccept(redeemed.value.sessionToken)) {
        c.header("Retry-After", "5");
        return errorBody(c, 429, "too_many_connections", "Too many WebSocket connections; close some and try again.", { retry_after: 5 });
      }
      c.set("sessionToken", redeemed.value.sessionToken);
      await next();
    },
    upgrade((c) => hub.events(c.get("sessionToken")))
  );
}

// packages/http-hono/src/routes/ws-token.ts
import { Hono as Hono5 } from "hono";
function wsTokenRoutes(services, logger) {
  return new Hono5().get("/ws-token", async (c) => {
    const session = await readCookieSession(c, services, logger);
    if (session.kind === "banned") return tooManyAttempts(c, session.retryAfterSeconds, { success: false, message: "Too many failed attempts; this address is blocked for now." });
    if (session.kind === "none") return c.json({ success: false, message: "Not logged in: call POST /api/webui/auth/verify first." });
    const issued = await services.tickets.issue(session.token);
    if (!issued.ok) return c.json({ success: false, message: "The session is no longer valid; log in again." });
    return c.json({ success: true, token: issued.value.ticket, expires_in: issued.value.expiresIn });
  });
}

// packages/http-hono/src/create-webui-app.ts
var API_PREFIX = "/api/webui";
var MAX_BODY_BYTES = 16 * 1024;
var PUBLIC_PATHS = /* @__PURE__ */ new Set(["/health", "/auth/verify", "/auth/check", "/auth/logout", "/ws-token", "/ws", "/openapi.json", "/docs"]);
function createWebuiApp(options) {
  const { services, policy, connection, logger } = options;
  const cookie = new SessionCookie(policy, logger);
  const isPublic = (path) => PUBLIC_PATHS.has(path.slice(API_PREFIX.length));
  const api = new Hono6().use(requestLog(logger, options.now ?? (() => performance.now()))).use(
    cors({
      origin: (origin, c) => isAllowedOrigin(origin, c, policy) ? origin : null,
      credentials: true,
      allowMethods: ["GET", "POST", "OPTIONS"],
      allowHeaders: ["Content-Type"],
      maxAge: 600
    })
  ).use(originGuard(policy)).use(
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => errorBody(c, 413, "payload_too_large", `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`)
    })
  ).use(sessionGuard(services, logger, isPublic)).route("/", healthRoutes(policy.serviceName)).route("/", authRoutes(services, cookie, logger)).route("/", setupRoutes(services, logger)).route("/", wsTokenRoutes(services, logger));
  if (options.webSocket) api.route("/", wsRoutes(services, policy, options.webSocket.hub, options.webSocket.upgrade));
  for (const group of options.protectedRoutes ?? []) api.route(group.path, group.app);
  const app = new Hono6().use(async (c, next) => {
    await next();
    c.header("Cache-Control", "no-store");
  }).use(clientContext(policy, connection)).use(ipAllowlist(policy)).use(hostGuard(policy)).route(API_PREFIX, api);
  app.notFound((c) => errorBody(c, 404, "not_found", `No endpoint at ${c.req.method} ${c.req.path}.`));
  app.onError((error, c) => {
    if (error instanceof HTTPException) {
      return errorBody(c, error.status === 500 ? 500 : error.status, "http_error", error.message || "Bad request.");
    }
    logger.error({ err: { message: error.message, name: error.name }, path: c.req.path }, "request failed");
    return errorBody(c, 500, "internal_error", "The server could not complete the request; see its log.");
  });
  return app;
}

// packages/http-hono/src/ws/ws-hub.ts
import * as v10 from "valibot";

// packages/http-hono/src/ws/envelopes.ts
import * as v9 from "valibot";
var RequestId = v9.union([v9.string(), v9.number()]);
var ClientMessage = v9.variant("op", [
  v9.looseObject({ op: v9.literal("ping") }),
  v9.looseObject({ op: v9.literal("subscribe"), id: RequestId, domain: v9.string(), topic: v9.string(), data: v9.optional(v9.unknown()) }),
  v9.looseObject({ op: v9.literal("unsubscribe"), id: RequestId, domain: v9.string(), topic: v9.string() })
]);
var LogSubscribeData = v9.optional(
  v9.looseObject({
    replay: v9.optional(v9.pipe(v9.number(), v9.integer(), v9.minValue(0), v9.maxValue(500)), 100)
  }),
  {}
);

// packages/http-hono/src/ws/ws-hub.ts
var CLOSE_TOKEN_CHANGED = 4001;
var CLOSE_GOING_AWAY = 1001;
var CLOSE_MESSAGE_TOO_BIG = 1009;
var CLOSE_TRY_AGAIN_LATER = 1013;
var WsHub = class {
  constructor(options) {
    this.options = options;
    this.maxPerSession = options.maxPerSession ?? 256;
    this.maxTotal = options.maxTotal ?? 1024;
    this.maxMessageBytes = options.maxMessageBytes ?? 64 * 1024;
  }
  connections = /* @__PURE__ */ new Set();
  maxPerSession;
  maxTotal;
  maxMessageBytes;
  get size() {
    return this.connections.size;
  }
  /** Whether one more socket fits the caps (DESIGN D14). */
  canAccept(sessionToken) {
    if (this.connections.size >= this.maxTotal) return false;
    let ofSession = 0;
    for (const connection of this.connections) if (connection.sessionToken === sessionToken) ofSession++;
    return ofSession < this.maxPerSession;
  }
  /** The event handlers of one socket opened with a ticket of `sessionToken`. */
  events(sessionToken) {
    const connection = { id: this.options.newConnectionId(), sessionToken, socket: void 0, subscriptions: /* @__PURE__ */ new Map() };
    return {
      onOpen: (_event, socket) => {
        connection.socket = socket;
        if (!this.canAccept(sessionToken)) {
          socket.close(CLOSE_TRY_AGAIN_LATER, "too many connections");
          return;
        }
        this.connections.add(connection);
        this.send(connection, { op: "event", domain: "system", event: "ready", data: { connection_id: connection.id, timestamp: this.options.now() } });
      },
      onMessage: (event) => this.receive(connection, event.data),
      onClose: () => this.drop(connection),
      onError: () => this.drop(connection)
    };
  }
  /** Closes every socket opened under a token that is no longer valid. */
  revokeSession(sessionToken) {
    for (const connection of [...this.connections]) {
      if (connection.sessionToken === sessionToken) this.close(connection, CLOSE_TOKEN_CHANGED, "access token changed");
    }
  }
  closeAll(code, reason) {
    for (const connection of [...this.connections]) this.close(connection, code, reason);
  }
  receive(connection, data) {
    const text = typeof data === "string" ? data : null;
    if (text === null) return this.fail(connection, null, "unsupported_message", "Send JSON text messages.");
    if (text.length > this.maxMessageBytes) return this.close(connection, CLOSE_MESSAGE_TOO_BIG, "message too big");
    let raw;
    try {
      raw = JSON.parse(text);
    } catch {
      return this.fail(connection, null, "invalid_json", "The message is not valid JSON.");
    }
    const id = requestIdOf(raw);
    const parsed = v10.safeParse(ClientMessage, raw);
    if (!parsed.success) {
      const op = typeof raw === "object" && raw !== null ? raw.op : void 0;
      if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return this.fail(connection, id, "invalid_message", 'A message is a JSON object with an "op".');
      if (op !== "ping" && op !== "subscribe" && op !== "unsubscribe") return this.fail(connection, id, "unknown_op", `Unknown op ${JSON.stringify(op ?? null).slice(0, 100)}.`);
      return this.fail(connection, id, "invalid_message", `Invalid ${String(op)} message: ${parsed.issues[0]?.message ?? "unexpected shape"}.`);
    }
    const message = parsed.output;
    switch (message.op) {
      case "ping":
        return this.send(connection, { op: "pong", ts: this.options.now() });
      case "subscribe":
        return this.subscribe(connection, message);
      case "unsubscribe": {
        const key = `${message.domain}/${message.topic}`;
        connection.subscriptions.get(key)?.();
        connection.subscriptions.delete(key);
        return this.send(connection, { op: "response", id: message.id, ok: true, data: { domain: message.domain, topic: message.topic } });
      }
    }
  }
  subscribe(connection, message) {
    const { id, domain, topic } = message;
    const key = `${domain}/${topic}`;
    if (key === "logs/main") {
      const data = v10.safeParse(LogSubscribeData, message.data);
      if (!data.success) return this.fail(connection, id, "invalid_request", "data.replay must be an integer from 0 to 500.");
      connection.subscriptions.get(key)?.();
      this.send(connection, { op: "response", id, ok: true, data: { domain, topic } });
      this.send(connection, { op: "event", domain, topic, event: "snapshot", data: { entries: this.options.logs.recent(data.output.replay) } });
      connection.subscriptions.set(key, this.options.logs.subscribe((entry) => this.send(connection, { op: "event", domain, topic, event: "entry", data: entry })));
      return;
    }
    if (key === "plugin_progress/main") {
      connection.subscriptions.get(key)?.();
      this.send(connection, { op: "response", id, ok: true, data: { domain, topic } });
      this.send(connection, { op: "event", domain, topic, event: "snapshot", data: { progress: this.options.progress.snapshot() } });
      connection.subscriptions.set(key, this.options.progress.subscribe((progress) => this.send(connection, { op: "event", domain, topic, event: "update", data: progress })));
      return;
    }
    this.fail(connection, id, "unknown_topic", `No topic ${JSON.stringify(key).slice(0, 100)}; available: logs/main, plugin_progress/main.`);
  }
  fail(connection, id, code, message) {
    this.send(connection, { op: "response", id, ok: false, error: { code, message } });
  }
  send(connection, envelope) {
    if (connection.socket.readyState === 1) connection.socket.send(JSON.stringify(envelope));
  }
  close(connection, code, reason) {
    this.drop(connection);
    try {
      connection.socket.close(code, reason);
    } catch (error) {
      this.options.logger.debug({ err: String(error) }, "closing a WebSocket failed");
    }
  }
  drop(connection) {
    for (const unsubscribe of connection.subscriptions.values()) unsubscribe();
    connection.subscriptions.clear();
    this.connections.delete(connection);
  }
};
function requestIdOf(raw) {
  if (typeof raw !== "object" || raw === null) return null;
  const id = raw.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

// packages/http-hono/src/ws/plugin-progress-board.ts
var PluginProgressBoard = class {
  constructor(capacity = 200) {
    this.capacity = capacity;
  }
  latest = /* @__PURE__ */ new Map();
  listeners = /* @__PURE__ */ new Set();
  publish(progress) {
    this.latest.delete(progress.plugin_id);
    this.latest.set(progress.plugin_id, progress);
    if (this.latest.size > this.capacity) this.latest.delete(this.latest.keys().next().value);
    for (const listener of this.listeners) listener(progress);
  }
  snapshot() {
    return [...this.latest.values()];
  }
  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
};

// packages/store-json/src/json-file-store.ts
import { join } from "node:path";

// packages/store-json/src/file-system.ts
import * as fsp from "node:fs/promises";
var nodeFileSystem = {
  open: (path, flags, mode) => fsp.open(path, flags, mode),
  readFile: (path) => fsp.readFile(path),
  rename: (from, to) => fsp.rename(from, to),
  stat: (path) => fsp.stat(path),
  mkdir: (path, options) => fsp.mkdir(path, options),
  chmod: (path, mode) => fsp.chmod(path, mode),
  unlink: (path) => fsp.unlink(path)
};
function errorCode2(error) {
  if (typeof error !== "object" || error === null || !("code" in error)) return void 0;
  return typeof error.code === "string" ? error.code : void 0;
}

// packages/store-json/src/atomic-write.ts
var tempCounter = 0;
async function replaceFile(fs, path, content, mode) {
  tempCounter += 1;
  const tempPath = `${path}.tmp-${process.pid}-${tempCounter}`;
  let file;
  let created = false;
  try {
    file = await fs.open(tempPath, "wx", mode);
    created = true;
    await file.writeFile(content);
    await file.sync();
    const closing = file;
    file = void 0;
    await closing.close();
    await fs.rename(tempPath, path);
  } catch (error) {
    await file?.close().catch(() => void 0);
    if (created) await fs.unlink(tempPath).catch(() => void 0);
    throw error;
  }
}
async function syncDirectory(fs, directory) {
  let handle;
  try {
    handle = await fs.open(directory, "r");
  } catch (error) {
    if (isUnsupported(error)) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    if (!isUnsupported(error)) throw error;
  } finally {
    await handle.close().catch(() => void 0);
  }
}
function isUnsupported(error) {
  const code = errorCode2(error);
  return code === "EISDIR" || code === "EPERM" || code === "EINVAL" || code === "ENOTSUP";
}

// packages/store-json/src/file-signature.ts
function fileSignature(stats) {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}

// packages/store-json/src/record-file.ts
import * as v11 from "valibot";
var RECORD_FILE_NAME = "webui.json";
var KNOWN_FIELDS = /* @__PURE__ */ new Set(["access_token", "token_source", "first_setup_completed", "secret_key_fingerprint"]);
var RecordFileSchema = v11.looseObject({
  access_token: v11.pipe(v11.string("access_token must be a string"), v11.nonEmpty("access_token must not be empty")),
  token_source: v11.optional(v11.picklist(["temporary", "configured"], 'token_source must be "temporary" or "configured"')),
  // Files that predate the setup wizard have no flag: setup was never completed there.
  first_setup_completed: v11.optional(v11.boolean("first_setup_completed must be true or false"), false),
  secret_key_fingerprint: v11.optional(v11.string("secret_key_fingerprint must be a string"))
});
function parseRecordFile(bytes) {
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, reason: "the file is not valid UTF-8" };
  }
  if (text.trim() === "") return { ok: false, reason: "the file is empty" };
  let json;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `the file is not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  const parsed = v11.safeParse(RecordFileSchema, json);
  if (!parsed.success) {
    const problems = parsed.issues.map((issue) => `${v11.getDotPath(issue) ?? "(top level)"}: ${issue.message}`);
    return { ok: false, reason: `the file has the wrong shape (${problems.join("; ")})` };
  }
  const { access_token, token_source, first_setup_completed, secret_key_fingerprint } = parsed.output;
  const record = { accessToken: access_token, firstSetupCompleted: first_setup_completed };
  if (token_source !== void 0) record.tokenSource = token_source;
  if (secret_key_fingerprint !== void 0) record.secretKeyFingerprint = secret_key_fingerprint;
  return { ok: true, value: { record, unknownFields: unknownFieldsOf(parsed.output) } };
}
function serializeRecordFile(record, unknownFields) {
  const file = {
    access_token: record.accessToken,
    ...record.tokenSource !== void 0 ? { token_source: record.tokenSource } : {},
    first_setup_completed: record.firstSetupCompleted,
    ...record.secretKeyFingerprint !== void 0 ? { secret_key_fingerprint: record.secretKeyFingerprint } : {}
  };
  return `${JSON.stringify({ ...file, ...unknownFieldsOf(unknownFields) }, null, 2)}
`;
}
function unknownFieldsOf(object2) {
  return Object.fromEntries(Object.entries(object2).filter(([key]) => !KNOWN_FIELDS.has(key)));
}

// packages/store-json/src/serial-queue.ts
var SerialQueue = class {
  tail = Promise.resolve();
  run(task) {
    const result2 = this.tail.then(task, task);
    this.tail = result2.catch(() => void 0);
    return result2;
  }
  /** Resolves once every task queued so far has settled. */
  async idle() {
    await this.tail;
  }
};

// packages/store-json/src/json-file-store.ts
var FILE_MODE = 384;
var DIRECTORY_MODE = 448;
var GROUP_OR_OTHER_BITS = 63;
var POLL_INTERVAL_MS = 250;
var CHECKS_MODES = process.platform !== "win32";
var JsonFileStore = class {
  path;
  dataDir;
  clock;
  fs;
  emit;
  shortLived;
  queue = new SerialQueue();
  listeners = /* @__PURE__ */ new Set();
  opened = false;
  record = null;
  unknownFields = {};
  /** The file's bytes as last read or written by us; a poll that finds them again saw no hand edit. */
  knownBytes = null;
  /** fileSignature of the file when knownBytes was last confirmed; null forces the next poll to read. */
  signature = null;
  poll;
  pollQueued = false;
  constructor(options) {
    this.dataDir = options.dataDir;
    this.path = join(options.dataDir, RECORD_FILE_NAME);
    this.clock = options.clock;
    this.fs = options.fs ?? nodeFileSystem;
    this.emit = options.onEvent ?? (() => void 0);
    this.shortLived = new MemoryStore(options.clock, options.limits ? { limits: options.limits } : {});
  }
  /** Prepares the data directory and reads the file; throws, naming the path, when startup must stop. */
  async open() {
    await this.queue.run(async () => {
      await this.prepareDirectory();
      await this.loadAtStartup();
      this.opened = true;
    });
  }
  /** Starts picking up hand edits of the file (DESIGN D12). */
  watch() {
    this.requireOpen();
    if (this.poll) return;
    this.poll = setInterval(() => this.queuePoll(), POLL_INTERVAL_MS);
    this.poll.unref();
  }
  /** Stops the poll and waits for a write or reload in progress. */
  async close() {
    clearInterval(this.poll);
    this.poll = void 0;
    await this.queue.idle();
  }
  /** Subscribes to changes of the record (own writes and hand edits); returns the unsubscribe. */
  onRecordChanged(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  async readRecord() {
    this.requireOpen();
    return this.record ? { ...this.record } : null;
  }
  async writeRecord(record) {
    this.requireOpen();
    const next = { ...record };
    return this.queue.run(async () => {
      const unknownFields = await this.newestUnknownFields();
      const content = serializeRecordFile(next, unknownFields);
      await replaceFile(this.fs, this.path, content, FILE_MODE);
      this.knownBytes = new TextEncoder().encode(content);
      this.signature = null;
      this.unknownFields = unknownFields;
      this.adopt(next);
      await syncDirectory(this.fs, this.dataDir);
    });
  }
  readAttempts(key) {
    return this.shortLived.readAttempts(key);
  }
  writeAttempts(key, record, expiresAt) {
    return this.shortLived.writeAttempts(key, record, expiresAt);
  }
  deleteAttempts(key) {
    return this.shortLived.deleteAttempts(key);
  }
  putTicket(ticket, grant) {
    return this.shortLived.putTicket(ticket, grant);
  }
  consumeTicket(ticket) {
    return this.shortLived.consumeTicket(ticket);
  }
  revokeTickets(sessionToken) {
    return this.shortLived.revokeTickets(sessionToken);
  }
  /** Drops expired tickets and attempt records; a server calls it on a timer (DESIGN D14). */
  sweep() {
    this.shortLived.sweep();
  }
  requireOpen() {
    if (!this.opened) throw new Error(`JsonFileStore for ${this.path}: call open() before use`);
  }
  async prepareDirectory() {
    let stats;
    try {
      await this.fs.mkdir(this.dataDir, { recursive: true, mode: DIRECTORY_MODE });
      stats = await this.fs.stat(this.dataDir);
    } catch (error) {
      throw new Error(`Cannot create or open the data directory ${this.dataDir}: ${describe(error)}`, { cause: error });
    }
    if (!stats.isDirectory()) throw new Error(`The data directory ${this.dataDir} is not a directory`);
    if (CHECKS_MODES && (stats.mode & GROUP_OR_OTHER_BITS) !== 0) {
      this.emit({ kind: "insecure-permissions", path: this.dataDir, mode: stats.mode & 511, fixed: false });
    }
  }
  async loadAtStartup() {
    let stats;
    try {
      stats = await this.fs.stat(this.path);
    } catch (error) {
      if (errorCode2(error) !== "ENOENT") throw unreadableFile(this.path, error);
      this.record = null;
      return;
    }
    if (stats.isDirectory()) throw new Error(`The token file ${this.path} is a directory; move it away so the server can create the file`);
    if (!stats.isFile()) throw new Error(`The token file ${this.path} is not a regular file`);
    let bytes;
    try {
      bytes = await this.fs.readFile(this.path);
    } catch (error) {
      throw unreadableFile(this.path, error);
    }
    const parsed = parseRecordFile(bytes);
    if (!parsed.ok) {
      await this.moveAside(parsed.reason);
      this.record = null;
      return;
    }
    await this.tightenFileMode(stats);
    this.record = parsed.value.record;
    this.unknownFields = parsed.value.unknownFields;
    this.knownBytes = bytes;
    this.signature = fileSignature(stats);
  }
  /** Keeps a corrupt file for the operator to inspect (DESIGN D12): renamed, never deleted. */
  async moveAside(reason) {
    const stamp = new Date(this.clock.now()).toISOString().replace(/:/g, "-");
    let movedTo = `${this.path}.corrupt-${stamp}`;
    for (let n = 1; await this.exists(movedTo); n += 1) movedTo = `${this.path}.corrupt-${stamp}-${n}`;
    try {
      await this.fs.rename(this.path, movedTo);
    } catch (error) {
      throw new Error(`The token file ${this.path} is unusable (${reason}) and could not be moved aside to ${movedTo}: ${describe(error)}`, { cause: error });
    }
    this.emit({ kind: "corrupt-file-moved", path: this.path, movedTo, reason });
  }
  async exists(path) {
    try {
      await this.fs.stat(path);
      return true;
    } catch (error) {
      if (errorCode2(error) === "ENOENT") return false;
      throw new Error(`Cannot inspect ${path}: ${describe(error)}`, { cause: error });
    }
  }
  /** A hand-made file may be world-readable; the token is a secret, so it becomes 0600 like our own writes. */
  async tightenFileMode(stats) {
    if (!CHECKS_MODES || (stats.mode & GROUP_OR_OTHER_BITS) === 0) return;
    const mode = stats.mode & 511;
    try {
      await this.fs.chmod(this.path, FILE_MODE);
      this.emit({ kind: "insecure-permissions", path: this.path, mode, fixed: true });
    } catch {
      this.emit({ kind: "insecure-permissions", path: this.path, mode, fixed: false });
    }
  }
  /** Unknown fields of the file as it is now, so fields added by hand since the last poll survive the write. */
  async newestUnknownFields() {
    try {
      const parsed = parseRecordFile(await this.fs.readFile(this.path));
      if (parsed.ok) return parsed.value.unknownFields;
    } catch {
    }
    return this.unknownFields;
  }
  queuePoll() {
    if (this.pollQueued) return;
    this.pollQueued = true;
    void this.queue.run(() => this.reloadIfEdited()).finally(() => {
      this.pollQueued = false;
    });
  }
  async reloadIfEdited() {
    let stats;
    try {
      stats = await this.fs.stat(this.path);
    } catch (error) {
      this.refuseOnce(`stat:${errorCode2(error) ?? "unknown"}`, errorCode2(error) === "ENOENT" ? "the file was removed" : describe(error));
      return;
    }
    const signature = fileSignature(stats);
    if (signature === this.signature) return;
    let bytes;
    try {
      bytes = await this.fs.readFile(this.path);
    } catch (error) {
      this.refuseOnce(signature, describe(error));
      return;
    }
    if (this.knownBytes && sameBytes(bytes, this.knownBytes)) {
      this.signature = signature;
      return;
    }
    const parsed = parseRecordFile(bytes);
    if (!parsed.ok) {
      this.refuseOnce(signature, parsed.reason);
      return;
    }
    this.signature = signature;
    this.knownBytes = bytes;
    this.unknownFields = parsed.value.unknownFields;
    this.adopt(parsed.value.record);
    this.emit({ kind: "reloaded", path: this.path });
  }
  /** Reports a refused reload once per state of the file, not on every poll. */
  refuseOnce(signature, reason) {
    if (signature === this.signature) return;
    this.signature = signature;
    this.emit({ kind: "reload-refused", path: this.path, reason: `${reason}; the last good record stays in force` });
  }
  adopt(next) {
    const previous = this.record;
    this.record = next;
    if (sameRecord(previous, next)) return;
    for (const listener of this.listeners) {
      try {
        listener(next ? { ...next } : null, previous ? { ...previous } : null);
      } catch (error) {
        this.emit({ kind: "listener-failed", reason: describe(error) });
      }
    }
  }
};
function unreadableFile(path, error) {
  const code = errorCode2(error);
  const hint = code === "EACCES" || code === "EPERM" ? ": permission denied; give the server user read and write access (mode 0600)" : `: ${describe(error)}`;
  return new Error(`Cannot read the token file ${path}${hint}`, { cause: error });
}
function sameRecord(a, b) {
  if (a === null || b === null) return a === b;
  return a.accessToken === b.accessToken && a.tokenSource === b.tokenSource && a.firstSetupCompleted === b.firstSetupCompleted && a.secretKeyFingerprint === b.secretKeyFingerprint;
}
function sameBytes(a, b) {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
function describe(error) {
  return error instanceof Error ? error.message : String(error);
}

// apps/server/src/serve.ts
import { Hono as Hono7 } from "hono";
import { join as join3 } from "node:path";

// apps/server/src/container.ts
import { container as rootContainer, instanceCachingFactory } from "tsyringe";

// apps/server/src/logging/log-feed.ts
import { Writable } from "node:stream";
var LEVEL_NAMES = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARNING", 50: "ERROR", 60: "CRITICAL" };
var LogFeed = class {
  constructor(capacity = 500) {
    this.capacity = capacity;
  }
  entries = [];
  listeners = /* @__PURE__ */ new Set();
  nextId = 1;
  /** A pino destination: receives each serialised line. */
  stream = new Writable({
    write: (chunk, _encoding, callback) => {
      for (const line of chunk.toString().split("\n")) if (line.trim() !== "") this.push(line);
      callback();
    }
  });
  recent(count) {
    return count <= 0 ? [] : this.entries.slice(-count);
  }
  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  push(line) {
    let record;
    try {
      record = JSON.parse(line);
    } catch {
      return;
    }
    const entry = {
      id: this.nextId++,
      timestamp: new Date(typeof record.time === "number" ? record.time : Date.now()).toISOString(),
      level: LEVEL_NAMES[record.level] ?? String(record.level),
      module: typeof record.module === "string" ? record.module : "webui",
      message: typeof record.msg === "string" ? record.msg : ""
    };
    this.entries.push(entry);
    if (this.entries.length > this.capacity) this.entries.shift();
    for (const listener of this.listeners) listener(entry);
  }
};

// apps/server/src/runtime/crypto-random.ts
import { randomBytes } from "node:crypto";
var cryptoRandom = { bytes: (length) => new Uint8Array(randomBytes(length)) };

// apps/server/src/runtime/system-clock.ts
var systemClock = { now: () => Date.now() };

// apps/server/src/container.ts
var TOKENS = {
  Settings: Symbol("LoadedSettings"),
  Clock: Symbol("Clock"),
  Random: Symbol("RandomSource"),
  Store: Symbol("Store"),
  Logger: Symbol("Logger")
};
function createContainer(loaded, logger, feed, overrides = {}) {
  const c = rootContainer.createChildContainer();
  const single = (factory) => ({ useFactory: instanceCachingFactory(factory) });
  c.register(TOKENS.Settings, { useValue: loaded });
  c.register(TOKENS.Logger, { useValue: logger });
  c.register(LogFeed, { useValue: feed });
  c.register(TOKENS.Clock, { useValue: overrides.clock ?? systemClock });
  c.register(TOKENS.Random, { useValue: overrides.random ?? cryptoRandom });
  c.register(
    JsonFileStore,
    single((r) => {
      const storeLogger = r.resolve(TOKENS.Logger).child({ module: "store" });
      return new JsonFileStore({
        dataDir: loaded.dataDir,
        clock: r.resolve(TOKENS.Clock),
        onEvent: (event) => {
          const level = event.kind === "reloaded" ? "info" : event.kind === "insecure-permissions" ? "warn" : "error";
          storeLogger[level]({ event }, describeStoreEvent(event.kind));
        }
      });
    })
  );
  c.register(TOKENS.Store, { useFactory: (r) => r.resolve(JsonFileStore) });
  c.register(RecordEditor, single((r) => new RecordEditor(r.resolve(TOKENS.Store))));
  c.register(TokenService, single((r) => new TokenService(r.resolve(TOKENS.Store), r.resolve(RecordEditor), r.resolve(TOKENS.Random))));
  c.register(SetupState, single((r) => new SetupState(r.resolve(RecordEditor))));
  c.register(BanPolicy, single((r) => new BanPolicy(r.resolve(TOKENS.Store), r.resolve(TOKENS.Clock))));
  c.register(
    WsTicketIssuer,
    single((r) => new WsTicketIssuer(r.resolve(TOKENS.Store), r.resolve(TokenService), r.resolve(TOKENS.Clock), r.resolve(TOKENS.Random)))
  );
  return c;
}
function describeStoreEvent(kind) {
  switch (kind) {
    case "corrupt-file-moved":
      return "webui.json was not valid; it was kept aside and a new temporary token was made";
    case "insecure-permissions":
      return "the data directory or webui.json is readable by others";
    case "reloaded":
      return "webui.json was edited by hand; the change is in force";
    case "reload-refused":
      return "a hand edit of webui.json is not valid; the last good state stays in force";
    default:
      return "a webui.json change listener failed";
  }
}

// apps/server/src/http-policy.ts
function httpPolicyFrom(settings, listenOrigins) {
  return {
    serviceName: "webui",
    mode: settings.mode,
    secureCookie: settings.secureCookie,
    sessionExpireDays: settings.sessionExpireDays,
    trustedProxies: settings.trustedProxies.map(toCidr),
    allowedIps: settings.allowedIps.map(toCidr),
    allowedOrigins: settings.allowedOrigins,
    allowedHosts: settings.allowedHosts,
    listenOrigins,
    loopbackOnly: settings.host.every(isLoopbackHost2)
  };
}
function toCidr(text) {
  const cidr = parseCidr(text);
  if (!cidr) throw new Error(`not an IP or CIDR: ${text}`);
  return cidr;
}
function isLoopbackHost2(host) {
  if (host.toLowerCase() === "localhost") return true;
  const ip = parseIp(host);
  if (!ip) return false;
  return ip.version === 4 ? ip.bytes[0] === 127 : ip.bytes.every((b, i) => b === (i === 15 ? 1 : 0));
}
function originOf(host, port) {
  return host.includes(":") ? `http://[${host}]:${port}` : `http://${host}:${port}`;
}

// apps/server/src/instance-lock.ts
import { closeSync, mkdirSync, openSync, readFileSync as readFileSync2, unlinkSync, writeSync } from "node:fs";
import { join as join2 } from "node:path";

// apps/server/src/startup-error.ts
var StartupError = class extends Error {
};

// apps/server/src/instance-lock.ts
var LOCK_FILE_NAME = "webui.lock";
var InstanceLock = class _InstanceLock {
  constructor(path) {
    this.path = path;
  }
  static acquire(dataDir) {
    const path = join2(dataDir, LOCK_FILE_NAME);
    try {
      mkdirSync(dataDir, { recursive: true, mode: 448 });
    } catch (error) {
      throw new StartupError(`cannot create the data directory ${dataDir}: ${error.message}`);
    }
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = openSync(path, "wx", 384);
        writeSync(fd, `${process.pid}
`);
        closeSync(fd);
        return new _InstanceLock(path);
      } catch (error) {
        if (error.code !== "EEXIST") {
          throw new StartupError(`cannot create the lock file ${path}: ${error.message}`);
        }
      }
      const owner = readOwner(path);
      if (owner !== null && owner !== process.pid && isAlive(owner)) {
        throw new StartupError(`another server (pid ${owner}) is already using the data directory ${dataDir}; stop it first (lock file ${path})`);
      }
      try {
        unlinkSync(path);
      } catch {
      }
    }
    throw new StartupError(`cannot take the lock file ${path}; remove it if no server is running`);
  }
  release() {
    try {
      if (readOwner(this.path) === process.pid) unlinkSync(this.path);
    } catch {
    }
  }
};
function readOwner(path) {
  try {
    const pid = Number.parseInt(readFileSync2(path, "utf8").trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

// apps/server/src/listeners.ts
import { createAdaptorServer } from "@hono/node-server";
var HEADERS_TIMEOUT_MS = 1e4;
var REQUEST_TIMEOUT_MS = 3e4;
async function bindAll(hosts, port, fetch, logger) {
  const bound = [];
  let chosenPort = port;
  for (const host of hosts) {
    const server = createAdaptorServer({ fetch });
    server.headersTimeout = HEADERS_TIMEOUT_MS;
    server.requestTimeout = REQUEST_TIMEOUT_MS;
    server.keepAliveTimeout = 5e3;
    try {
      await listen(server, host, chosenPort);
    } catch (error) {
      const code = error.code;
      const address2 = host.includes(":") ? `[${host}]:${chosenPort}` : `${host}:${chosenPort}`;
      if (code === "EADDRINUSE") {
        await Promise.all(bound.map((listener) => closeServer(listener.server)));
        throw new StartupError(`cannot listen on ${address2}: the port is already in use (set webui.port, WEBUI_PORT or --port)`);
      }
      logger.warn({ host, port: chosenPort, code }, `cannot listen on ${address2}: ${error.message}; continuing without it`);
      continue;
    }
    const address = server.address();
    if (address && typeof address === "object") chosenPort = address.port;
    bound.push({ host, port: chosenPort, server });
  }
  if (bound.length === 0) throw new StartupError(`could not listen on any of ${hosts.join(", ")} (port ${port}); check webui.host`);
  return bound;
}
function listen(server, host, port) {
  return new Promise((resolve2, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve2();
    });
  });
}
function closeServer(server) {
  return new Promise((resolve2) => {
    server.close(() => resolve2());
    server.closeIdleConnections();
  });
}

// apps/server/src/logging/create-logger.ts
import pino from "pino";
function createLogger(level, feed, destination = process.stdout) {
  return pino(
    {
      level,
      // No pid/hostname noise; children name their module, the feed calls the rest 'webui'.
      base: void 0,
      // Belt and braces: fields that could hold a secret are never written, whatever a caller passes.
      redact: { paths: ["token", "accessToken", "access_token", "new_token", "secretKey", "secret_key", "cookie", "headers.cookie"], censor: "[redacted]" }
    },
    pino.multistream([
      { stream: destination, level },
      { stream: feed.stream, level }
    ])
  );
}

// apps/server/src/runtime/secret-key-fingerprint.ts
import { createHash } from "node:crypto";
function secretKeyFingerprint(secretKey) {
  return secretKey === void 0 ? void 0 : createHash("sha256").update(secretKey, "utf8").digest("hex");
}

// apps/server/src/websocket-channel.ts
import { createNodeWebSocket } from "@hono/node-ws";
import { randomUUID } from "node:crypto";
var MAX_MESSAGE_BYTES = 64 * 1024;
var HEARTBEAT_INTERVAL_MS = 3e4;
var WebSocketChannel = class {
  hub;
  progress = new PluginProgressBoard();
  nodeWs;
  alive = /* @__PURE__ */ new WeakSet();
  heartbeat;
  constructor(root, logs, logger, heartbeatMs = HEARTBEAT_INTERVAL_MS) {
    this.nodeWs = createNodeWebSocket({ app: root });
    this.nodeWs.wss.options.maxPayload = MAX_MESSAGE_BYTES;
    this.nodeWs.wss.on("connection", (socket) => {
      this.alive.add(socket);
      socket.on("pong", () => this.alive.add(socket));
    });
    this.hub = new WsHub({ logs, progress: this.progress, logger, now: () => Date.now(), newConnectionId: randomUUID, maxMessageBytes: MAX_MESSAGE_BYTES });
    this.heartbeat = setInterval(() => this.beat(), heartbeatMs);
    this.heartbeat.unref();
  }
  get upgrade() {
    return this.nodeWs.upgradeWebSocket;
  }
  attach(server) {
    this.nodeWs.injectWebSocket(server);
  }
  /** Clean shutdown: every client is told the server is going away (1001); stragglers are cut after `graceMs`. */
  async close(graceMs = 1e3) {
    clearInterval(this.heartbeat);
    this.hub.closeAll(CLOSE_GOING_AWAY, "server shutting down");
    const deadline = Date.now() + graceMs;
    while (this.nodeWs.wss.clients.size > 0 && Date.now() < deadline) await new Promise((resolve2) => setTimeout(resolve2, 20));
    for (const socket of this.nodeWs.wss.clients) socket.terminate();
  }
  /** A socket that did not answer the previous ping is dead: terminate it, its close frees the hub entry. */
  beat() {
    for (const socket of this.nodeWs.wss.clients) {
      if (!this.alive.has(socket)) {
        socket.terminate();
        continue;
      }
      this.alive.delete(socket);
      socket.ping();
    }
  }
};

// apps/server/src/serve.ts
var SWEEP_INTERVAL_MS = 3e4;
var nodeConnection = {
  peerAddress: (c) => getConnInfo(c).remote.address,
  isTls: (c) => Boolean(c.env.incoming?.socket?.encrypted)
};
async function serve(loaded, options = {}) {
  const { settings } = loaded;
  const feed = new LogFeed();
  const logger = createLogger(settings.logLevel, feed, options.logDestination);
  const container = createContainer(loaded, logger, feed, options.overrides);
  const lock = InstanceLock.acquire(loaded.dataDir);
  const store = container.resolve(JsonFileStore);
  try {
    await store.open();
  } catch (error) {
    lock.release();
    throw new StartupError(error.message);
  }
  const tokens = container.resolve(TokenService);
  const bootstrap = await tokens.bootstrap({ secretKeyFingerprint: secretKeyFingerprint(settings.secretKey) });
  logBootstrap(bootstrap, logger);
  store.watch();
  let listeners = [];
  const root = new Hono7();
  const channel = new WebSocketChannel(root, feed, logger.child({ module: "ws" }), options.heartbeatMs);
  tokens.onTokenChanged((previous) => channel.hub.revokeSession(previous));
  store.onRecordChanged((record, previous) => {
    if (previous && record?.accessToken !== previous.accessToken) {
      channel.hub.revokeSession(previous.accessToken);
      void store.revokeTickets(previous.accessToken);
    }
  });
  const app = createWebuiApp({
    services: { tokens, setup: container.resolve(SetupState), bans: container.resolve(BanPolicy), tickets: container.resolve(WsTicketIssuer) },
    policy: httpPolicyFrom(settings, () => listeners.map((listener) => originOf(listener.host, listener.port))),
    connection: nodeConnection,
    logger: logger.child({ module: "http" }),
    webSocket: { upgrade: channel.upgrade, hub: channel.hub }
  });
  root.route("/", app);
  try {
    listeners = await bindAll(settings.host, settings.port, app.fetch, logger);
    for (const listener of listeners) channel.attach(listener.server);
  } catch (error) {
    await channel.close();
    await store.close();
    lock.release();
    throw error;
  }
  const sweeper = setInterval(() => store.sweep(), SWEEP_INTERVAL_MS);
  sweeper.unref();
  printBanner(options.banner ?? process.stderr, loaded, listeners, bootstrap);
  logger.info({ addresses: listeners.map((l) => originOf(l.host, l.port)), dataDir: loaded.dataDir, tokenSource: bootstrap.tokenSource }, "WebUI API listening");
  return {
    listeners,
    logger,
    channel,
    async close() {
      clearInterval(sweeper);
      await channel.close();
      await Promise.all(listeners.map((listener) => closeServer(listener.server)));
      await store.close();
      lock.release();
    }
  };
}
function logBootstrap(outcome, logger) {
  if (outcome.reason === "secret_key_changed") {
    logger.warn({}, "webui.secret_key changed: every session is revoked and a new temporary token was made");
  }
  if (outcome.temporaryToken) {
    logger.info({ temporary_token: outcome.temporaryToken, reason: outcome.reason }, "temporary access token generated; log in with it and set your own");
  }
}
function printBanner(out, loaded, listeners, outcome) {
  const first = listeners[0];
  const base = originOf(first.host, first.port);
  const lines = [
    "",
    "WebUI management API",
    `  listening   ${listeners.map((l) => `${originOf(l.host, l.port)}/api/webui`).join("  ")}`,
    `  data        ${join3(loaded.dataDir, RECORD_FILE_NAME)}`
  ];
  if (outcome.temporaryToken) {
    lines.push(`  token       temporary: ${outcome.temporaryToken}`);
    lines.push(`  login URL   ${base}/?token=${outcome.temporaryToken}`);
    lines.push("              (a new temporary token is made at every start until you set your own)");
  } else {
    lines.push("  token       configured (not shown; it is the access_token field of the data file)");
  }
  out.write(`${lines.join("\n")}

`);
}

// apps/server/src/cli.ts
var SHUTDOWN_GRACE_MS = 5e3;
async function runCli(argv, env, cwd) {
  let loaded;
  try {
    loaded = loadSettings({ argv, env, cwd });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`webui: configuration error: ${error.message}
`);
      return 1;
    }
    throw error;
  }
  if (false) {
    process.stdout.write(`webui: webui.enabled is false in ${loaded.configPath}; the WebUI API is not started.
`);
    return 0;
  }
  const attach = installSignalHandlers();
  let running;
  try {
    running = await serve(loaded);
  } catch (error) {
    if (error instanceof StartupError) {
      process.stderr.write(`webui: cannot start: ${error.message}
`);
      return 1;
    }
    throw error;
  }
  attach(running);
  return "running";
}
function installSignalHandlers() {
  let running;
  let pending;
  let stopping = false;
  const stop = (signal) => {
    const server = running;
    if (!server) {
      pending ??= signal;
      return;
    }
    if (stopping) return;
    stopping = true;
    server.logger.info({ signal }, "shutting down");
    const force = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS);
    force.unref();
    server.close().then(() => server.logger.flush(() => process.exit(0))).catch(() => process.exit(1));
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  return (server) => {
    running = server;
    if (pending) stop(pending);
  };
}

// apps/server/src/main.ts
var result = await runCli(process.argv.slice(2), process.env, process.cwd()).catch((error) => {
  process.stderr.write(`webui: unexpected failure: ${error instanceof Error ? error.stack ?? error.message : String(error)}
`);
  return 1;
});
if (result !== "running") process.exitCode = result;
//# sourceMappingURL=main.js.map
