import type { LoadedSettings } from './loaded-settings.js';
import { settingFileKeys, settingNames, type SettingName } from './settings.js';

/** One line per setting with its effective value and where it came from, for `webui config check`. */
export function describeSettings(loaded: LoadedSettings): string[] {
  const { sources } = loaded;
  const lines = [
    `config = ${loaded.configPath} (${sources.configPath}, ${loaded.configFileFound ? 'found' : 'not found'})`,
    `data_dir = ${loaded.dataDir} (${sources.dataDir})`,
  ];
  for (const name of settingNames) {
    lines.push(`webui.${settingFileKeys[name]} = ${formatValue(name, loaded)} (${sources[name]})`);
  }
  return lines;
}

function formatValue(name: SettingName, loaded: LoadedSettings): string {
  const value = loaded.settings[name];
  // The secret itself is never printed: a check output is often pasted into bug reports.
  if (name === 'secretKey') return value === undefined ? '(not set)' : '(set)';
  if (Array.isArray(value)) return `[${value.map((entry) => JSON.stringify(entry)).join(', ')}]`;
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
