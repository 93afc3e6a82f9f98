import type { SettingNote } from '@webui/http-hono';
import { upstreamDefaults } from './upstream-settings.js';
import type { upstreamTableSchema } from './upstream-table.js';

type UpstreamTableKey = keyof typeof upstreamTableSchema.entries;

/** What the configuration reference says of each key of `[webui.upstream]` beyond its schema and default. */
export const upstreamSettingNotes: Record<UpstreamTableKey, SettingNote> = {
  url: {
    env: 'WEBUI_UPSTREAM_URL',
    flag: '--upstream-url',
    description:
      'The bot’s own backend behind this server: `http://host:port`, `https://host[:port]` or `unix:/absolute/path`; no path, ' +
      'query, user or password (its credential goes in `upstream.headers`). Given by variable or flag alone, it enables the ' +
      'upstream with the defaults below.',
  },
  paths: { description: 'Path prefixes forwarded, by whole segments; `["/"]` forwards every path this server does not answer.' },
  public_paths: {
    description:
      'Forwarded paths reachable without a credential, `GET` and `HEAD` only: an exact path, or a prefix ending in `/*`. ' +
      'They reach the upstream with its configured credential: list only what the login page needs.',
  },
  headers: {
    description:
      'Headers added to every upstream request, e.g. `Cookie = "maibot_session=${MAIBOT_TOKEN}"`; `${NAME}` is read from the ' +
      'environment at startup (unset or empty stops the start, naming the header and the variable; Deno reads only the variables ' +
      'its `--allow-env` lists); no escape: every `${` starts a reference. `Host`, `Content-Length`, hop-by-hop headers, ' +
      '`X-Forwarded-*`, `Forwarded` and `X-WebUI-*` are refused, in either spelling (`_` for `-`). Shown as `***`.',
  },
  timeout: {
    description:
      'Seconds to wait for the head of an upstream answer before `504 upstream_timeout`: above 0, at most 3600 (a streamed body may take longer).',
  },
};

/** Each key's default as the reference shows it: the url has none, headers are none. */
export const upstreamTableDefaults: Record<UpstreamTableKey, unknown> = {
  url: undefined,
  paths: upstreamDefaults.paths,
  public_paths: upstreamDefaults.publicPaths,
  headers: {},
  timeout: upstreamDefaults.timeoutSeconds,
};
