import { startCaddy, stopAllCaddy } from '../harness/proxies/caddy.js';
import { forwardAuthBehind } from '../harness/proxies/forward-auth-scenarios.js';
import { substituted } from '../harness/readme-recipe.js';

// Debian's caddy, forward_auth: the caller gets the server's own refusals unchanged.
forwardAuthBehind({
  name: 'Caddy',
  async start(recipe, ports) {
    const caddyfile = substituted(recipe('caddyfile'), [
      ['bot.example.com {', `http://127.0.0.1:${ports.proxy} {`, 1],
      ['127.0.0.1:8001', `127.0.0.1:${ports.server}`, 2],
      ['127.0.0.1:8002', `127.0.0.1:${ports.backend}`, 1],
    ]);
    await startCaddy(caddyfile, [ports.proxy]);
  },
  passesServerBodies: true,
  stopAll: stopAllCaddy,
  codes: {
    foreignOrigin: 'origin_not_allowed',
    readScope: 'insufficient_scope',
    wrongCookie: 'invalid_session',
    wrongKey: 'invalid_credentials',
  },
});
