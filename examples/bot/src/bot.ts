import type { ExtensionsSource } from '@webui/assembly';
import { join } from 'node:path';
import { BotConfigFile } from './bot-config-file.js';
import { chatDomain } from './chat-domain.js';
import { configRoutes } from './config-routes.js';
import { pluginRoutes } from './plugin-routes.js';
import { systemRoutes } from './system-routes.js';

/**
 * The example bot: its route groups and channel domain, made once the server has made what they need (the bot's logger,
 * the plugin progress board, the data directory). Runtime-neutral: node.ts, bun.ts and deno.ts hand it to their runtime's
 * `serveWebui`.
 */
export function exampleBot(runtime: string): ExtensionsSource {
  const startedAt = Date.now();
  return async ({ log, progress, dataDir }) => {
    const settings = await BotConfigFile.open(join(dataDir ?? process.cwd(), 'bot.toml'));
    log.info({ runtime }, 'example bot started');
    return {
      routes: [configRoutes(settings), systemRoutes(runtime, startedAt), pluginRoutes(progress)],
      domains: [chatDomain(() => settings.section().nickname)],
    };
  };
}
