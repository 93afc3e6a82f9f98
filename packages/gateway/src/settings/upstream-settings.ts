import { expandTemplate, templateParts } from './header-template.js';
import type { SettingSource } from '@webui/http-hono';
import type { UpstreamTable } from './upstream-table.js';
import type { UpstreamAddress } from './upstream-url.js';

/** `[webui.upstream]` after validation, defaults and the expansion of `${NAME}` in header values. */
export interface UpstreamSettings {
  /** `http(s)://host[:port]` as an origin (lower case, no default port, no path), or `unix:/absolute/path`. */
  url: string;
  /** The Unix socket to dial when `url` is `unix:/absolute/path`. */
  socketPath?: string;
  /** Path prefixes forwarded, matched by whole segments; no trailing slash except `/` itself. */
  paths: string[];
  /** Forwarded paths reachable without a credential (GET and HEAD): exact, or a prefix when ending in `/*`. */
  publicPaths: string[];
  /** Added to every upstream request, `${NAME}` replaced by the environment's value: secrets, never printed. */
  headers: Record<string, string>;
  /** The same headers as written in the file, `${NAME}` kept, so what is shown names the variables only. */
  headerTemplates: Record<string, string>;
  /** How long the head of an upstream answer is waited for. */
  timeoutSeconds: number;
}

/** The keys of [webui.upstream], each with its source in LoadedSettings.sources when an upstream is configured. */
export const upstreamFileKeys = {
  upstreamUrl: 'upstream.url',
  upstreamPaths: 'upstream.paths',
  upstreamPublicPaths: 'upstream.public_paths',
  upstreamHeaders: 'upstream.headers',
  upstreamTimeout: 'upstream.timeout',
} as const;

export type UpstreamSettingName = keyof typeof upstreamFileKeys;

/** What [webui.upstream] holds when a key is not given; the dashboard calls version-compatibility before login. */
export const upstreamDefaults = Object.freeze({
  paths: ['/api/webui'],
  publicPaths: ['/api/webui/version-compatibility'],
  timeoutSeconds: 30,
});

/** A mistake in `[webui.upstream]` (or its variable or flag), told in one line naming the key and the file; the assembly reports it as
 * its ConfigError. */
export class UpstreamSettingError extends Error {
  override name = 'UpstreamSettingError';
}

export interface UpstreamLayers {
  flagUrl: UpstreamAddress | undefined;
  envUrl: UpstreamAddress | undefined;
  /** [webui.upstream] of the config file, if it has one. */
  table: UpstreamTable | undefined;
  fileLabel: string;
  readEnv: (name: string) => string | undefined;
}

export interface ResolvedUpstream {
  upstream: UpstreamSettings;
  sources: Record<UpstreamSettingName, SettingSource>;
}

/**
 * The upstream: its url by flag > env > file, the other keys from the file or their defaults, header values expanded from the
 * environment. Undefined when no url is given anywhere; the table without one is a mistake.
 */
export function resolveUpstream(layers: UpstreamLayers): ResolvedUpstream | undefined {
  const { table, fileLabel } = layers;
  const [urlSource, address] = pickUrl(layers);
  if (address === undefined) {
    if (table === undefined) return undefined;
    throw new UpstreamSettingError(
      `${fileLabel}: webui.upstream.url is missing: [webui.upstream] needs the upstream's address (or WEBUI_UPSTREAM_URL, --upstream-url)`,
    );
  }
  const fromFile = (given: unknown): SettingSource => (given === undefined ? 'default' : 'file');
  const headerTemplates = table?.headers ?? {};
  const upstream: UpstreamSettings = {
    ...address,
    paths: table?.paths ?? [...upstreamDefaults.paths],
    publicPaths: table?.public_paths ?? [...upstreamDefaults.publicPaths],
    headers: expandHeaders(headerTemplates, layers),
    headerTemplates: { ...headerTemplates },
    timeoutSeconds: table?.timeout ?? upstreamDefaults.timeoutSeconds,
  };
  const sources = {
    upstreamUrl: urlSource,
    upstreamPaths: fromFile(table?.paths),
    upstreamPublicPaths: fromFile(table?.public_paths),
    upstreamHeaders: fromFile(table?.headers),
    upstreamTimeout: fromFile(table?.timeout),
  };
  return { upstream, sources };
}

function pickUrl({ flagUrl, envUrl, table }: UpstreamLayers): [SettingSource, UpstreamAddress | undefined] {
  if (flagUrl !== undefined) return ['flag', flagUrl];
  if (envUrl !== undefined) return ['env', envUrl];
  return ['file', table?.url];
}

// The messages name the header and the variable, never a value: either may be the secret.
function expandHeaders(templates: Record<string, string>, { readEnv, fileLabel }: UpstreamLayers): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(templates)) {
    // The table's schema has refused every template without parts.
    const expansion = expandTemplate(templateParts(template) ?? [], readEnv);
    if (!expansion.ok) {
      const problem =
        expansion.problem === 'unset'
          ? 'which is not set (or is empty)'
          : 'whose value holds a line break or another character a header cannot carry';
      throw new UpstreamSettingError(
        `${fileLabel}: webui.upstream.headers.${name} reads the environment variable ${expansion.variable}, ${problem}`,
      );
    }
    headers[name] = expansion.value;
  }
  return headers;
}
