/**
 * `[webui.upstream]`: its valibot schema, its resolution from flag, variable and file, its reference notes, its gateway options
 * (docs/decisions/0038-a-features-settings.md).
 */
export { describeUpstream } from './describe-upstream.js';
export { upstreamTableSchema, type UpstreamTable } from './upstream-table.js';
export { upstreamUrlSchema, type UpstreamAddress } from './upstream-url.js';
export {
  resolveUpstream,
  upstreamDefaults,
  upstreamFileKeys,
  UpstreamSettingError,
  type ResolvedUpstream,
  type UpstreamLayers,
  type UpstreamSettingName,
  type UpstreamSettings,
} from './upstream-settings.js';
export { upstreamSettingNotes, upstreamTableDefaults } from './upstream-setting-docs.js';
export { UNIX_SOCKET_ORIGIN, upstreamOptionsFrom, type UpstreamRuntimeParts } from './upstream-options-from.js';
