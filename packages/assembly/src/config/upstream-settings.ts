import { expandTemplate, templateParts } from './header-template.js';
import { ConfigError, upstreamDefaults, type SettingSource, type UpstreamSettingName, type UpstreamSettings } from './settings.js';
import type { UpstreamTable } from './upstream-table.js';
import type { UpstreamAddress } from './upstream-url.js';

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
    throw new ConfigError(
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
      throw new ConfigError(
        `${fileLabel}: webui.upstream.headers.${name} reads the environment variable ${expansion.variable}, ${problem}`,
      );
    }
    headers[name] = expansion.value;
  }
  return headers;
}
