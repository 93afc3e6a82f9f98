/** The settings of the WebUI server: config file, WEBUI_* variables and flags, merged flag > env > file > default. */
export { parseConfigFlags, type ConfigFlags } from './config-flags.js';
export { describeSettings, loadSettings, SETTING_VARIABLES, type LoadSettingsInput } from './load-settings.js';
export { ConfigError, type LoadedSettings, type SettingName, type SettingSource, type WebuiSettings } from './settings.js';
export type { UpstreamSettingName, UpstreamSettings } from '@webui/gateway';
