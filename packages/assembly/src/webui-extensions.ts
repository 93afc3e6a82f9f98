import type { ChannelDomainPort, PluginProgressBoard, RouteGroup } from '@webui/http-hono';
import type { Logger } from 'pino';
import type { LogFeed } from './logging/log-feed.js';

/** What a bot mounts on the server: route groups under /api/webui behind its login, and channel domains. */
export interface WebuiExtensions {
  routes?: readonly RouteGroup[];
  domains?: readonly ChannelDomainPort[];
}

/** What the server hands a bot before it mounts: its logger, where its log lines go, the plugin progress board, its data directory. */
export interface ExtensionContext {
  /**
   * The bot's logger (pino, module `bot`), the one its handlers get as `log`: each line reaches the log view and the process
   * output, formatted (pretty or JSON) and redacted as the server's own.
   */
  log: Logger;
  /** The dashboard's log stream: `write(entry)`, or `destination(module)` for the bot's own pino logger. */
  logs: Pick<LogFeed, 'write' | 'destination'>;
  /** What the channel's plugin_progress domain serves (the bot's own channel's, with an upstream). */
  progress: PluginProgressBoard;
  /** The data directory (null with --memory): the bot may keep its own files beside webui.json. */
  dataDir: string | null;
}

/** The extensions themselves, or a function that makes them once the server has made what they need (it may be async). */
export type ExtensionsSource = WebuiExtensions | ((context: ExtensionContext) => WebuiExtensions | Promise<WebuiExtensions>);

export function extensionsFrom(
  source: ExtensionsSource | undefined,
  context: ExtensionContext,
): WebuiExtensions | Promise<WebuiExtensions> {
  if (source === undefined) return {};
  return typeof source === 'function' ? source(context) : source;
}
