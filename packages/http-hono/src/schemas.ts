// Every body the API reads or writes, declared once: the routes validate requests and type their answers
// with these, the OpenAPI document is generated from them, and the client's types are inferred from the routes.
export * from './schemas/error.js';
export * from './schemas/health.js';
export * from './schemas/auth.js';
export * from './schemas/auth-forward.js';
export * from './schemas/setup.js';
export * from './schemas/ws-token.js';
export * from './schemas/bans.js';
export * from './schemas/keys.js';
export * from './schemas/ws.js';
