/**
 * The example bot on Node: the production server, the one apps/server runs, with the `webui` commands too.
 *   node dist/node.js [--port N] [--host LIST] [--data-dir DIR] [--config FILE] [--memory]    (or: node dist/node.js token show)
 */
import { serveWebui } from '@webui/assembly/node';
import { exampleBot } from './bot.js';

await serveWebui(exampleBot('node'));
