import { RouteGroup, type PluginProgressBoard } from '@webui/assembly';
import * as v from 'valibot';

const PLUGINS = ['greeter', 'dice', 'weather'] as const;
const Reloaded = v.strictObject({ reloaded: v.number() });

/** POST /api/webui/plugins/reload: reloads the plugins, publishing each step to the channel's plugin_progress domain. */
export function pluginRoutes(progress: PluginProgressBoard): RouteGroup {
  return new RouteGroup('/api/webui/plugins').post('/reload', { summary: 'Reload every plugin', response: Reloaded }, (c, { log }) => {
    const step = { operation: 'update', stage: 'loading', error: null, plugin_id: null, total_plugins: PLUGINS.length } as const;
    PLUGINS.forEach((plugin, index) =>
      progress.publish({
        ...step,
        plugin_id: plugin,
        progress: Math.round((index / PLUGINS.length) * 100),
        message: `reloading ${plugin}`,
        loaded_plugins: index,
      }),
    );
    progress.publish({ ...step, stage: 'success', progress: 100, message: 'plugins reloaded', loaded_plugins: PLUGINS.length });
    log.info({ plugins: PLUGINS.length }, 'plugins reloaded');
    return c.json({ reloaded: PLUGINS.length });
  });
}
