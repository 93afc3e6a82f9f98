export { createWebuiApp, API_PREFIX, MAX_BODY_BYTES, type WebuiAppOptions } from './create-webui-app.js';
export type { AppLogger, ConnectionInfo, HttpPolicy, WebuiEnv, WebuiServices } from './app-env.js';
export { resolveClient, type ResolvedClient } from './client-ip.js';
export { SESSION_COOKIE } from './session-cookie.js';
export { LOGOUT_MESSAGE } from './routes/auth.js';
