import { describeReceived, type SettingSource } from '@webui/http-hono';
import { templateVariables } from './header-template.js';
import { upstreamFileKeys, type UpstreamSettingName, type UpstreamSettings } from './upstream-settings.js';

/** One line per key of `[webui.upstream]`, its value and where it came from, for `webui config check`; header values masked. */
export function describeUpstream(upstream: UpstreamSettings, sources: Partial<Record<UpstreamSettingName, SettingSource>>): string[] {
  return (Object.keys(upstreamFileKeys) as UpstreamSettingName[]).map(
    (name) => `webui.${upstreamFileKeys[name]} = ${formatUpstreamValue(name, upstream)} (${sources[name] ?? 'default'})`,
  );
}

function formatUpstreamValue(name: UpstreamSettingName, upstream: UpstreamSettings): string {
  switch (name) {
    case 'upstreamUrl':
      // It holds no secret: a user or password in it is refused.
      return JSON.stringify(upstream.url);
    case 'upstreamPaths':
      return describeReceived(upstream.paths);
    case 'upstreamPublicPaths':
      return describeReceived(upstream.publicPaths);
    case 'upstreamHeaders':
      return formatHeaders(upstream.headerTemplates);
    case 'upstreamTimeout':
      return String(upstream.timeoutSeconds);
  }
}

// Every value is masked, even one written in the file: only the names of the variables it reads are shown.
function formatHeaders(templates: Record<string, string>): string {
  const entries = Object.entries(templates).map(([name, template]) => {
    const variables = templateVariables(template);
    return variables.length === 0 ? `${name}: ***` : `${name}: *** (from ${variables.map((variable) => `\${${variable}}`).join(', ')})`;
  });
  return `{${entries.join(', ')}}`;
}
