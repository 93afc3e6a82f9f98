import { Hono } from 'hono';
import type { WebuiEnv } from '../../app-env.js';
import type { Feature } from '../../feature.js';
import type { FeatureContext } from '../feature-context.js';

/** The OpenAPI document at /openapi.json, and the interactive docs at /docs when the runtime serves them; public. */
export const docsFeature = ({ options, openApi }: FeatureContext) => {
  const routes = new Hono<WebuiEnv>().get('/openapi.json', (c) => c.json(openApi()));
  const docs = options.docs;
  if (docs) routes.get('/docs', docs).get('/docs/*', docs);
  return { name: 'docs', routes, publicPaths: ['/openapi.json', '/docs', '/docs/*'] } satisfies Feature<any>;
};
