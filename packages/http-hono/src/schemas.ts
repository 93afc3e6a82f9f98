// Every body the API reads or writes, declared once: the routes validate requests and type their answers
// with these, the OpenAPI document is generated from them, and the client's types are inferred from the routes.
export * from './schemas/error.js';
export * from './features/health/health-schemas.js';
export * from './features/auth/auth-schemas.js';
export * from './features/auth/auth-forward-schemas.js';
export * from './features/setup/setup-schemas.js';
export * from './features/ws-token/ws-token-schemas.js';
export * from './features/bans/bans-schemas.js';
export * from './features/keys/keys-schemas.js';
export * from './features/channel/ws-schemas.js';
