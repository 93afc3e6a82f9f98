export { createWebuiApp, API_PREFIX, MAX_BODY_BYTES, type WebuiAppOptions, type WebuiApp } from './create-webui-app.js';
export type { AppLogger, ConnectionInfo, HttpPolicy, WebuiEnv, WebuiServices } from './app-env.js';
export { resolveClient, type ResolvedClient } from './client-ip.js';
export { SESSION_COOKIE } from './session-cookie.js';
export { LOGOUT_MESSAGE } from './routes/auth.js';
export type { WsUpgrade } from './routes/ws.js';
export { WsHub, CLOSE_TOKEN_CHANGED, CLOSE_GOING_AWAY, CLOSE_MESSAGE_TOO_BIG, CLOSE_TRY_AGAIN_LATER, type WsHubOptions } from './ws/ws-hub.js';
export { PluginProgressBoard, type PluginProgress } from './ws/plugin-progress-board.js';
export type { LogEntry, LogSource } from './ws/log-source.js';
