/** The elements of index.html the script drives, looked up once; a missing one is a build mistake, said at once. */
function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`setup page: #${id} is missing`);
  return element as T;
}

/** Grouped by the section of index.html that holds them, one line each. */
export const ui = {
  notice: byId('notice'),
  logout: byId<HTMLButtonElement>('logout'),
  views: {
    loading: byId('view-loading'),
    login: byId('view-login'),
    customToken: byId('view-custom-token'),
    setup: byId('view-setup'),
    status: byId('view-status'),
  },
  login: { form: byId<HTMLFormElement>('login-form'), token: byId<HTMLInputElement>('login-token'), error: byId('login-error') },
  newToken: {
    panel: byId('new-token-panel'),
    value: byId('new-token-value'),
    copy: byId<HTMLButtonElement>('copy-token'),
    dismiss: byId<HTMLButtonElement>('dismiss-token'),
    copyStatus: byId('copy-status'),
  },
  tokenForm: {
    form: byId<HTMLFormElement>('update-form'),
    input: byId<HTMLInputElement>('new-token'),
    showInput: byId<HTMLInputElement>('show-new-token'),
    rules: byId('token-rules-list'),
  },
  tokenRefusal: { box: byId('update-error'), message: byId('update-error-message'), violations: byId('violations') },
  regenerate: { button: byId<HTMLButtonElement>('regenerate'), error: byId('regenerate-error') },
  setup: { complete: byId<HTMLButtonElement>('complete-setup'), error: byId('setup-error') },
  status: {
    setup: byId('status-setup'),
    token: byId('status-token'),
    reset: byId<HTMLButtonElement>('reset-setup'),
    error: byId('status-error'),
  },
  bans: {
    panel: byId('bans-panel'),
    refresh: byId<HTMLButtonElement>('bans-refresh'),
    liftAll: byId<HTMLButtonElement>('bans-lift-all'),
    empty: byId('bans-empty'),
    table: byId('bans-table'),
    rows: byId('bans-rows'),
    error: byId('bans-error'),
  },
  keys: {
    panel: byId('keys-panel'),
    reload: byId<HTMLButtonElement>('keys-reload'),
    form: byId<HTMLFormElement>('key-form'),
    name: byId<HTMLInputElement>('key-name'),
    scope: byId<HTMLSelectElement>('key-scope'),
    expiry: byId<HTMLSelectElement>('key-expiry'),
    empty: byId('keys-empty'),
    table: byId('keys-table'),
    rows: byId('keys-rows'),
    error: byId('keys-error'),
  },
  newKey: {
    box: byId('new-key'),
    name: byId('new-key-name'),
    value: byId<HTMLInputElement>('new-key-value'),
    copy: byId<HTMLButtonElement>('copy-key'),
    copyStatus: byId('copy-key-status'),
  },
  logs: { panel: byId('logs-panel'), state: byId('log-state'), list: byId('log-list') },
};

/** A form's submit button, looked up when it is pressed. */
export function submitButtonOf(form: HTMLFormElement): HTMLButtonElement | null {
  return form.querySelector<HTMLButtonElement>('button[type="submit"]');
}
