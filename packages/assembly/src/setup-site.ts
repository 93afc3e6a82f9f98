import { serveStatic } from '@hono/node-server/serve-static';
import type { MiddlewareHandler } from 'hono';
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The page may only load its own script, style and API; nothing inline, nothing framed. */
export const SETUP_PAGE_CSP =
  "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri " +
  "'none'; form-action 'self'";

// From this package's src/ and dist/ alike, ../dist/web is where build-web.mjs puts the page; a server bundle copies it beside itself.
const DEFAULT_ROOT = fileURLToPath(new URL('../dist/web/', import.meta.url));

export interface SetupSiteOptions {
  /** The built pages (index.html, setup.js, setup.css); ../dist/web beside this module by default. */
  root?: string;
  logger?: { warn(fields: object, message: string): void };
}

/** Serves the first-setup page at `/` with security headers; createWebuiApp puts it behind its edge guards. */
export function createSetupSite(options: SetupSiteOptions = {}): MiddlewareHandler {
  const root = options.root ?? DEFAULT_ROOT;
  if (!existsSync(root)) {
    options.logger?.warn({ root }, 'setup page not built (run node packages/assembly/build-web.mjs); / answers 404');
    return (_c, next) => next();
  }
  // serveStatic takes a root relative to the working directory.
  const files = serveStatic({ root: relative(process.cwd(), root) || '.' });
  return async (c, next) => {
    const response = await files(c, async () => undefined);
    if (!response) return next();
    const headers = response.headers;
    headers.set('Content-Security-Policy', SETUP_PAGE_CSP);
    headers.set('X-Content-Type-Options', 'nosniff');
    // The address may carry ?token= until the page strips it: never send it on.
    headers.set('Referrer-Policy', 'no-referrer');
    headers.set('X-Frame-Options', 'DENY');
    headers.set('Cross-Origin-Opener-Policy', 'same-origin');
    if (headers.get('Content-Type')?.startsWith('text/html')) headers.set('Cache-Control', 'no-store');
    return response;
  };
}
