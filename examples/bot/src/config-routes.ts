import { RouteGroup } from '@webui/assembly';
import type { BotConfigFile } from './bot-config-file.js';
import { BotSection } from './bot-section.js';

/** /api/webui/config/bot: reading needs a session or any key (GET), replacing it an admin key or the token (PUT). */
export function configRoutes(file: BotConfigFile): RouteGroup {
  return new RouteGroup('/api/webui/config')
    .get('/bot', { summary: 'The [bot] table of bot.toml', response: BotSection }, (c) => c.json(file.section()))
    .put(
      '/bot',
      { summary: 'Replace the [bot] table of bot.toml', body: BotSection, response: BotSection },
      async (c, { body, audit, log }) => {
        await file.replaceSection(body);
        audit('config_updated', { section: 'bot' });
        log.info({ section: 'bot' }, 'bot settings updated');
        return c.json(file.section());
      },
    );
}
