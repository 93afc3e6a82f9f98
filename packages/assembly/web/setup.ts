// The first-setup page: log in, replace the temporary token, complete setup, watch the live log.
// Plain DOM, no framework; data from the server only ever goes into textContent.
import { TOKEN_VIOLATION_MESSAGES, type TokenViolation } from '@webui/core';
import type { LogEntry } from '@webui/http-hono';

const API = '/api/webui';
const MAX_LOG_ROWS = 500;
const LOG_REPLAY = 100;
const RECONNECT_DELAY_MS = 3_000;

// The login link carries the token: take it out of the address bar before anything touches the network.
const tokenFromUrl = takeTokenFromUrl();

function takeTokenFromUrl(): string | null {
  const url = new URL(window.location.href);
  if (!url.searchParams.has('token')) return null;
  // Read the raw value: URLSearchParams turns '+' into a space, and '+' is a valid token character.
  const raw = /(?:^|&)token=([^&]*)/.exec(url.search.slice(1))?.[1] ?? '';
  let token = raw;
  try {
    token = decodeURIComponent(raw);
  } catch {
    // Malformed escapes: keep the text as typed.
  }
  url.searchParams.delete('token');
  window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
  return token.trim() === '' ? null : token.trim();
}

// ---- DOM ----

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`setup page: #${id} is missing`);
  return element as T;
}

const ui = {
  notice: byId('notice'),
  logout: byId<HTMLButtonElement>('logout'),
  views: {
    loading: byId('view-loading'),
    login: byId('view-login'),
    customToken: byId('view-custom-token'),
    setup: byId('view-setup'),
    status: byId('view-status'),
  },
  loginForm: byId<HTMLFormElement>('login-form'),
  loginToken: byId<HTMLInputElement>('login-token'),
  loginError: byId('login-error'),
  updateForm: byId<HTMLFormElement>('update-form'),
  newToken: byId<HTMLInputElement>('new-token'),
  showNewToken: byId<HTMLInputElement>('show-new-token'),
  rulesList: byId('token-rules-list'),
  updateError: byId('update-error'),
  updateErrorMessage: byId('update-error-message'),
  violations: byId('violations'),
  regenerate: byId<HTMLButtonElement>('regenerate'),
  regenerateError: byId('regenerate-error'),
  newTokenPanel: byId('new-token-panel'),
  newTokenValue: byId('new-token-value'),
  copyToken: byId<HTMLButtonElement>('copy-token'),
  dismissToken: byId<HTMLButtonElement>('dismiss-token'),
  copyStatus: byId('copy-status'),
  completeSetup: byId<HTMLButtonElement>('complete-setup'),
  setupError: byId('setup-error'),
  statusSetup: byId('status-setup'),
  statusToken: byId('status-token'),
  resetSetup: byId<HTMLButtonElement>('reset-setup'),
  statusError: byId('status-error'),
  logsPanel: byId('logs-panel'),
  logState: byId('log-state'),
  logList: byId('log-list'),
};

type ViewName = keyof typeof ui.views;

function show(view: ViewName): void {
  for (const [name, element] of Object.entries(ui.views)) element.hidden = name !== view;
  const loggedIn = view !== 'loading' && view !== 'login';
  ui.logout.hidden = !loggedIn;
  ui.logsPanel.hidden = !loggedIn;
  if (view === 'login') ui.loginToken.focus();
}

function setText(element: HTMLElement, text: string | null): void {
  element.textContent = text ?? '';
  element.hidden = text === null || text === '';
}

function clearErrors(): void {
  for (const element of [ui.loginError, ui.regenerateError, ui.setupError, ui.statusError]) setText(element, null);
  ui.updateError.hidden = true;
  ui.violations.replaceChildren();
}

/** Disables a button while its request runs, so a double click sends one request. */
async function busy(button: HTMLButtonElement, work: () => Promise<void>): Promise<void> {
  button.disabled = true;
  try {
    await work();
  } finally {
    button.disabled = false;
  }
}

// ---- API ----

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

class NetworkError extends Error {}

async function api(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
  let response: Response;
  try {
    response = await fetch(`${API}${path}`, {
      method,
      credentials: 'same-origin',
      cache: 'no-store',
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new NetworkError('The server cannot be reached; is it running?');
  }
  let parsed: unknown = null;
  try {
    parsed = await response.json();
  } catch {
    parsed = null;
  }
  const record = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  return { status: response.status, body: record };
}

function text(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
}

function describeRetry(answer: Answer): string {
  const seconds = typeof answer.body['retry_after'] === 'number' ? answer.body['retry_after'] : Number.NaN;
  if (!Number.isFinite(seconds)) return 'Too many failed attempts from this address; try again later.';
  const minutes = Math.floor(seconds / 60);
  const rest = Math.round(seconds % 60);
  const wait = minutes > 0 ? `${minutes} min ${rest.toString().padStart(2, '0')} s` : `${rest} s`;
  const until = new Date(Date.now() + seconds * 1000).toLocaleTimeString();
  return `Too many failed attempts from this address. Try again in ${wait} (at ${until}).`;
}

/** A login-required call answered 401: the session is gone (token changed, expired, revoked). */
function sessionLost(message = 'Your session has ended; log in again.'): void {
  logStream.stop();
  show('login');
  setText(ui.loginError, message);
}

function failure(answer: Answer, fallback: string): string {
  if (answer.status === 429) return describeRetry(answer);
  return text(answer.body['detail'], text(answer.body['message'], fallback));
}

// ---- session ----

interface SessionFacts {
  requiresCustomToken: boolean;
  tokenSource: string;
  /** Unknown after /auth/check, which does not carry it. */
  isFirstSetup?: boolean;
}

type LoginOutcome = { ok: true } | { ok: false; message: string };

async function login(token: string): Promise<LoginOutcome> {
  const answer = await api('POST', '/auth/verify', { token });
  if (answer.status === 429) return { ok: false, message: describeRetry(answer) };
  if (answer.status !== 200) return { ok: false, message: failure(answer, `Login failed (HTTP ${answer.status}).`) };
  if (answer.body['valid'] !== true) return { ok: false, message: text(answer.body['message'], 'Invalid token.') };
  await enterSession({
    requiresCustomToken: answer.body['requires_custom_token'] === true,
    tokenSource: text(answer.body['token_source'], 'unknown'),
    isFirstSetup: answer.body['is_first_setup'] === true,
  });
  return { ok: true };
}

async function enterSession(facts: SessionFacts): Promise<void> {
  logStream.start();
  if (facts.requiresCustomToken) {
    show('customToken');
    return;
  }
  let isFirstSetup = facts.isFirstSetup;
  let tokenSource = facts.tokenSource;
  if (isFirstSetup === undefined) {
    const answer = await api('GET', '/setup/status');
    if (answer.status === 401) return sessionLost();
    if (answer.status !== 200) {
      show('setup');
      setText(ui.setupError, failure(answer, 'The setup state could not be read.'));
      return;
    }
    if (answer.body['requires_custom_token'] === true) {
      show('customToken');
      return;
    }
    isFirstSetup = answer.body['is_first_setup'] === true;
    tokenSource = text(answer.body['token_source'], tokenSource);
  }
  if (isFirstSetup) show('setup');
  else showStatus(tokenSource);
}

function showStatus(tokenSource: string): void {
  ui.statusSetup.textContent = 'completed';
  ui.statusToken.textContent = tokenSource === 'configured' ? 'your own (configured)' : tokenSource;
  show('status');
}

/** Logs in again with a token just set: changing the token cleared the old cookie. */
async function reloginWith(token: string): Promise<void> {
  // The socket opened under the old token is closing (4001); start afresh under the new one.
  logStream.stop();
  const outcome = await login(token);
  if (!outcome.ok) sessionLost(`The token was changed, but logging in with it failed: ${outcome.message}`);
}

// ---- handlers ----

ui.loginForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const token = ui.loginToken.value.trim();
  clearErrors();
  if (token === '') {
    setText(ui.loginError, 'Enter the access token.');
    return;
  }
  const button = ui.loginForm.querySelector<HTMLButtonElement>('button[type="submit"]');
  void guarded(async () => {
    const run = async () => {
      const outcome = await login(token);
      if (outcome.ok) ui.loginToken.value = '';
      else setText(ui.loginError, outcome.message);
    };
    if (button) await busy(button, run);
    else await run();
  }, ui.loginError);
});

ui.showNewToken.addEventListener('change', () => {
  ui.newToken.type = ui.showNewToken.checked ? 'text' : 'password';
});

ui.updateForm.addEventListener('submit', (event) => {
  event.preventDefault();
  clearErrors();
  const candidate = ui.newToken.value;
  const button = ui.updateForm.querySelector<HTMLButtonElement>('button[type="submit"]');
  void guarded(async () => {
    const run = async () => {
      const answer = await api('POST', '/auth/update', { new_token: candidate });
      if (answer.status === 401) return sessionLost();
      if (answer.status !== 200 || answer.body['success'] !== true) {
        showUpdateError(answer);
        return;
      }
      ui.newToken.value = '';
      notify('Your token is set. Logging in with it…');
      await reloginWith(candidate);
    };
    if (button) await busy(button, run);
    else await run();
  }, ui.updateErrorMessage, () => (ui.updateError.hidden = false));
});

function showUpdateError(answer: Answer): void {
  const violations = Array.isArray(answer.body['violations']) ? answer.body['violations'].filter((v): v is string => typeof v === 'string') : [];
  ui.updateErrorMessage.textContent = violations.length > 0 ? 'This token is not accepted. It needs:' : failure(answer, `The token was not changed (HTTP ${answer.status}).`);
  ui.violations.replaceChildren(
    ...violations.map((code) => {
      const item = document.createElement('li');
      item.textContent = TOKEN_VIOLATION_MESSAGES[code as TokenViolation] ?? code;
      item.dataset['violation'] = code;
      return item;
    }),
  );
  ui.updateError.hidden = false;
  ui.newToken.focus();
}

ui.regenerate.addEventListener('click', () => {
  clearErrors();
  void guarded(
    () =>
      busy(ui.regenerate, async () => {
        const answer = await api('POST', '/auth/regenerate');
        if (answer.status === 401) return sessionLost();
        const token = text(answer.body['token']);
        if (answer.status !== 200 || token === '') {
          setText(ui.regenerateError, failure(answer, `No new token was generated (HTTP ${answer.status}).`));
          return;
        }
        revealToken(token);
        await reloginWith(token);
      }),
    ui.regenerateError,
  );
});

function revealToken(token: string): void {
  ui.newTokenValue.textContent = token;
  ui.copyStatus.textContent = '';
  ui.newTokenPanel.hidden = false;
  ui.copyToken.focus();
}

ui.copyToken.addEventListener('click', () => {
  const token = ui.newTokenValue.textContent ?? '';
  const selectInstead = () => {
    const selection = window.getSelection();
    selection?.selectAllChildren(ui.newTokenValue);
    ui.copyStatus.textContent = 'The token is selected: press Ctrl+C (⌘C on a Mac) to copy it.';
  };
  if (!navigator.clipboard?.writeText) return selectInstead();
  navigator.clipboard.writeText(token).then(() => {
    ui.copyStatus.textContent = 'Copied to the clipboard.';
  }, selectInstead);
});

ui.dismissToken.addEventListener('click', () => {
  ui.newTokenValue.textContent = '';
  ui.copyStatus.textContent = '';
  window.getSelection()?.removeAllRanges();
  ui.newTokenPanel.hidden = true;
});

ui.completeSetup.addEventListener('click', () => {
  clearErrors();
  void guarded(
    () =>
      busy(ui.completeSetup, async () => {
        const answer = await api('POST', '/setup/complete');
        if (answer.status === 401) return sessionLost();
        if (answer.status !== 200 || answer.body['success'] !== true) {
          setText(ui.setupError, failure(answer, `Setup could not be completed (HTTP ${answer.status}).`));
          return;
        }
        notify('First setup completed.');
        showStatus('configured');
      }),
    ui.setupError,
  );
});

ui.resetSetup.addEventListener('click', () => {
  clearErrors();
  if (!window.confirm('Reset the first-setup state? The setup wizard will be entered again.')) return;
  void guarded(
    () =>
      busy(ui.resetSetup, async () => {
        const answer = await api('POST', '/setup/reset');
        if (answer.status === 401) return sessionLost();
        if (answer.status !== 200 || answer.body['success'] !== true) {
          setText(ui.statusError, failure(answer, `Setup could not be reset (HTTP ${answer.status}).`));
          return;
        }
        notify('First setup reset.');
        show('setup');
      }),
    ui.statusError,
  );
});

ui.logout.addEventListener('click', () => {
  void guarded(
    () =>
      busy(ui.logout, async () => {
        logStream.stop();
        await api('POST', '/auth/logout');
        ui.newTokenValue.textContent = '';
        ui.newTokenPanel.hidden = true;
        clearErrors();
        notify('Logged out.');
        show('login');
      }),
    ui.loginError,
  );
});

let noticeTimer: ReturnType<typeof setTimeout> | undefined;
function notify(message: string): void {
  setText(ui.notice, message);
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => setText(ui.notice, null), 6_000);
}

/** Runs a handler; a network failure or a bug becomes a message instead of an unhandled rejection. */
async function guarded(work: () => Promise<void>, errorTarget: HTMLElement, reveal?: () => void): Promise<void> {
  try {
    await work();
  } catch (error) {
    setText(errorTarget, error instanceof NetworkError ? error.message : `Something went wrong: ${error instanceof Error ? error.message : String(error)}`);
    reveal?.();
  }
}

// ---- live log ----

function isLogEntry(value: unknown): value is LogEntry {
  if (value === null || typeof value !== 'object') return false;
  const entry = value as Record<string, unknown>;
  return ['id', 'timestamp', 'level', 'module', 'message'].every((field) => typeof entry[field] === 'string');
}

/** One WebSocket on the unified channel, subscribed to logs/main; reconnects with a fresh ticket while logged in. */
class LogStream {
  private socket: WebSocket | null = null;
  /** Whether a socket is open, being opened, or a retry is scheduled. */
  private running = false;
  /** Bumped by stop(): callbacks of an older run do nothing. */
  private generation = 0;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private lastId = '';
  private requestId = 0;

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.connect(this.generation);
  }

  stop(): void {
    this.running = false;
    this.generation += 1;
    clearTimeout(this.retry);
    const socket = this.socket;
    this.socket = null;
    if (socket && socket.readyState <= WebSocket.OPEN) socket.close(1000, 'page closed the log');
    this.state('Disconnected', 'off');
  }

  private async connect(generation: number): Promise<void> {
    this.state('Connecting…', 'pending');
    let answer: Answer;
    try {
      answer = await api('GET', '/ws-token');
    } catch {
      return this.scheduleRetry(generation, 'Server unreachable');
    }
    if (generation !== this.generation) return;
    const ticket = text(answer.body['token']);
    if (answer.status !== 200 || answer.body['success'] !== true || ticket === '') {
      // No session (yet): the next login starts the stream again.
      this.running = false;
      this.state(answer.status === 429 ? 'Blocked for now' : 'Not logged in', 'off');
      return;
    }
    const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
    const socket = new WebSocket(`${scheme}://${window.location.host}${API}/ws?token=${encodeURIComponent(ticket)}`);
    this.socket = socket;
    const current = () => generation === this.generation && this.socket === socket;
    socket.addEventListener('open', () => {
      if (!current()) return;
      this.state('Live', 'on');
      this.requestId += 1;
      socket.send(JSON.stringify({ op: 'subscribe', id: `logs-${this.requestId}`, domain: 'logs', topic: 'main', data: { replay: LOG_REPLAY } }));
    });
    socket.addEventListener('message', (event) => {
      if (current()) this.receive(event.data);
    });
    socket.addEventListener('close', (event) => {
      if (!current()) return;
      this.socket = null;
      // 4001: the access token changed. Asking a ticket now would present a dead cookie, which counts as a
      // failed login (DESIGN D4); the next login starts the stream again.
      if (event.code === 4001) {
        this.running = false;
        this.state('Access token changed', 'off');
        return;
      }
      this.scheduleRetry(generation, 'Connection lost');
    });
  }

  private scheduleRetry(generation: number, reason: string): void {
    if (generation !== this.generation) return;
    this.state(`${reason}; retrying…`, 'pending');
    clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      if (generation === this.generation) void this.connect(generation);
    }, RECONNECT_DELAY_MS);
  }

  private receive(data: unknown): void {
    if (typeof data !== 'string') return;
    let message: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(data);
      if (parsed === null || typeof parsed !== 'object') return;
      message = parsed as Record<string, unknown>;
    } catch {
      return;
    }
    if (message['op'] === 'response' && message['ok'] === false) {
      const error = message['error'] as Record<string, unknown> | undefined;
      this.state(`Subscription refused: ${text(error?.['message'], 'unknown error')}`, 'off');
      return;
    }
    if (message['op'] !== 'event' || message['domain'] !== 'logs') return;
    const payload = message['data'] as Record<string, unknown> | undefined;
    if (message['event'] === 'snapshot') {
      const entries = Array.isArray(payload?.['entries']) ? payload['entries'].filter(isLogEntry) : [];
      // A reconnect replays entries already shown; keep only the new ones.
      this.append(entries.filter((entry) => entry.id > this.lastId));
    } else if (message['event'] === 'entry') {
      // A live line travels as data.entry, as the dashboard reads it; one already shown is skipped.
      const entry = payload?.['entry'];
      if (isLogEntry(entry) && entry.id > this.lastId) this.append([entry]);
    }
  }

  private append(entries: LogEntry[]): void {
    if (entries.length === 0) return;
    const list = ui.logList;
    const pinned = list.scrollHeight - list.scrollTop - list.clientHeight < 24;
    const rows = entries.map((entry) => {
      // Ids have a fixed width within a run and start with the run's start time: they compare as strings.
      if (entry.id > this.lastId) this.lastId = entry.id;
      return logRow(entry);
    });
    list.append(...rows);
    while (list.childElementCount > MAX_LOG_ROWS) list.firstElementChild?.remove();
    if (pinned) list.scrollTop = list.scrollHeight;
  }

  private state(label: string, kind: 'on' | 'off' | 'pending'): void {
    ui.logState.textContent = label;
    ui.logState.dataset['state'] = kind;
  }
}

function logRow(entry: LogEntry): HTMLLIElement {
  const row = document.createElement('li');
  const level = entry.level.toLowerCase().replace(/[^a-z]/g, '');
  row.className = `log-entry level-${level || 'other'}`;
  const time = document.createElement('time');
  time.dateTime = entry.timestamp;
  const when = new Date(entry.timestamp);
  time.textContent = Number.isNaN(when.getTime()) ? entry.timestamp : when.toLocaleTimeString([], { hour12: false });
  time.title = entry.timestamp;
  const levelCell = document.createElement('span');
  levelCell.className = 'log-level';
  levelCell.textContent = entry.level;
  const moduleCell = document.createElement('span');
  moduleCell.className = 'log-module';
  moduleCell.textContent = typeof entry.module === 'string' ? entry.module : '';
  const messageCell = document.createElement('span');
  messageCell.className = 'log-message';
  messageCell.textContent = entry.message;
  row.append(time, levelCell, moduleCell, messageCell);
  return row;
}

const logStream = new LogStream();

// ---- start ----

function renderRules(): void {
  const shown: TokenViolation[] = ['too_short', 'missing_uppercase', 'missing_lowercase', 'missing_special', 'invalid_characters'];
  ui.rulesList.replaceChildren(
    ...shown.map((rule) => {
      const item = document.createElement('li');
      item.textContent = TOKEN_VIOLATION_MESSAGES[rule];
      return item;
    }),
  );
}

async function start(): Promise<void> {
  renderRules();
  if (tokenFromUrl !== null) {
    const outcome = await login(tokenFromUrl);
    if (outcome.ok) return;
    // A stale login link must not hide a session that is still valid.
    const check = await api('GET', '/auth/check');
    if (check.status === 200 && check.body['authenticated'] === true) {
      await enterSession({ requiresCustomToken: check.body['requires_custom_token'] === true, tokenSource: text(check.body['token_source'], 'unknown') });
      notify(`The token in the login link was not accepted (${outcome.message}); you are still logged in.`);
      return;
    }
    show('login');
    setText(ui.loginError, `The token in the login link was not accepted. ${outcome.message}`);
    return;
  }
  const check = await api('GET', '/auth/check');
  if (check.status === 429) {
    show('login');
    setText(ui.loginError, describeRetry(check));
    return;
  }
  if (check.status === 200 && check.body['authenticated'] === true) {
    await enterSession({ requiresCustomToken: check.body['requires_custom_token'] === true, tokenSource: text(check.body['token_source'], 'unknown') });
    return;
  }
  show('login');
}

void guarded(start, ui.loginError, () => show('login'));
