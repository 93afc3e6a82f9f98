// The workspace's test helpers for packages built on this one (@webui/gateway's tests): not published (they import vitest).
export * from './test-app.js';
export * from './ws-doubles.js';
export * from './caps-hub.js';
