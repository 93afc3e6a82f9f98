import { authFeature } from './auth/feature.js';
import { bansFeature } from './bans/feature.js';
import { channelFeature } from './channel/feature.js';
import { docsFeature } from './docs/feature.js';
import type { FeatureContext } from './feature-context.js';
import { healthFeature } from './health/feature.js';
import { keysFeature } from './keys/feature.js';
import { metricsFeature } from './metrics/feature.js';
import { setupFeature } from './setup/feature.js';
import { wsTokenFeature } from './ws-token/feature.js';

/**
 * The server's own features, in the order the OpenAPI document lists them; each registers through the one Feature
 * interface a bot's extensions use. Adding one is its folder and one line here.
 */
export const builtinFeatures = (context: FeatureContext) =>
  [
    healthFeature(context),
    authFeature(context),
    setupFeature(context),
    wsTokenFeature(context),
    bansFeature(context),
    keysFeature(context),
    channelFeature(context),
    docsFeature(context),
    metricsFeature(context),
  ] as const;
