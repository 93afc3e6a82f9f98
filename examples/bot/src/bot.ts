import { runPortableServer, type PortableRuntime, type StartedWebui } from '@webui/assembly';
import { join } from 'node:path';
import pino from 'pino';
import { BotConfigFile } from './bot-config-file.js';
import { chatDomain } from './chat-domain.js';
import { configRoutes } from './config-routes.js';
import { pluginRoutes } from './plugin-routes.js';
import { systemRoutes } from './system-routes.js';

/**
 * The example bot: the WebUI server with the bot's own routes and channel domain behind its login. Runtime-neutral;
 * node.ts, bun.ts and deno.ts bring the runtime.
 */
export function startBot<Server>(runtime: PortableRuntime<Server>, runtimeName: string): Promise<StartedWebui<Server> | undefined> {
  const startedAt = Date.now();
  return runPortableServer(runtime, async ({ logs, progress, dataDir }) => {
    // The bot's lines go to the terminal and to the dashboard's log page (module "bot").
    const log = pino({ base: { module: 'bot' } }, pino.multistream([{ stream: process.stdout }, { stream: logs.destination('bot') }]));
    const settings = await BotConfigFile.open(join(dataDir ?? runtime.cwd, 'bot.toml'));
    log.info({ runtime: runtimeName }, 'example bot started');
    return {
      routes: [configRoutes(settings, log), systemRoutes(runtimeName, startedAt), pluginRoutes(progress, log)],
      domains: [chatDomain(() => settings.section().nickname, log)],
    };
  });
}
