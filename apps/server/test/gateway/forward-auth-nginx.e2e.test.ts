import { forwardAuthBehind } from '../harness/proxies/forward-auth-scenarios.js';
import { startNginxServers, stopAllNginx } from '../harness/proxies/nginx.js';
import { substituted } from '../harness/readme-recipe.js';

// Debian's nginx-light, with auth_request: it passes only 401 and 403 on, so the recipe maps the server's refusals to
// fixed bodies (the exact reason stays in the server's log and audit trail).
forwardAuthBehind({
  name: 'nginx',
  async start(recipe, ports) {
    const conf = substituted(recipe('nginx'), [
      ['listen 80;', `listen 127.0.0.1:${ports.proxy};`, 1],
      ['127.0.0.1:8001', `127.0.0.1:${ports.server}`, 2],
      ['127.0.0.1:8002', `127.0.0.1:${ports.backend}`, 1],
    ]);
    await startNginxServers(conf, [ports.proxy]);
  },
  passesServerBodies: false,
  stopAll: stopAllNginx,
  codes: { foreignOrigin: 'forbidden', readScope: 'forbidden', wrongCookie: 'not_authenticated', wrongKey: 'not_authenticated' },
});
