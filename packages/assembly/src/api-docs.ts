import type { MiddlewareHandler } from 'hono';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const DOCS = '/api/webui/docs';

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>WebUI management API</title>
<link rel="stylesheet" href="${DOCS}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS}/swagger-ui-bundle.js"></script>
<script src="${DOCS}/init.js"></script>
</body>
</html>
`;

// Kept out of the page: the CSP allows scripts from this server only, never inline ones. showExtensions shows each
// operation's x-webui-scope (the scope it needs) beside its description.
const INIT =
  `window.ui = SwaggerUIBundle({ url: '/api/webui/openapi.json', dom_id: '#swagger-ui', withCredentials: true, deepLinking: ` +
  `true, showExtensions: true });\n`;

/** Swagger UI served from the swagger-ui-dist npm package (no CDN), read once at startup. */
export function createApiDocs(): MiddlewareHandler {
  const root = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const assets = new Map<string, { body: string | Uint8Array; type: string }>([
    ['', { body: PAGE, type: 'text/html; charset=utf-8' }],
    ['/init.js', { body: INIT, type: 'text/javascript; charset=utf-8' }],
    ['/swagger-ui.css', { body: readFileSync(join(root, 'swagger-ui.css')), type: 'text/css; charset=utf-8' }],
    ['/swagger-ui-bundle.js', { body: readFileSync(join(root, 'swagger-ui-bundle.js')), type: 'text/javascript; charset=utf-8' }],
  ]);
  return async (c, next) => {
    const asset = assets.get(c.req.path.slice(DOCS.length));
    if (!asset) return next();
    c.header('Content-Type', asset.type);
    c.header('X-Content-Type-Options', 'nosniff');
    // Swagger UI sets inline styles at run time; scripts stay same-origin only.
    c.header(
      'Content-Security-Policy',
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
        "frame-ancestors 'none'; base-uri 'none'",
    );
    c.header('Cache-Control', asset.type.startsWith('text/html') ? 'no-store' : 'public, max-age=3600');
    return c.body(typeof asset.body === 'string' ? asset.body : new Uint8Array(asset.body));
  };
}
