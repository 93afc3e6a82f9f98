import type { SettingName, WebuiSettings } from './settings.js';

export type SettingSource = 'flag' | 'env' | 'file' | 'default';

export interface LoadedSettings {
  settings: WebuiSettings;
  /** Absolute. */
  dataDir: string;
  /** Absolute, whether or not the file exists. */
  configPath: string;
  configFileFound: boolean;
  sources: Record<SettingName | 'dataDir' | 'configPath', SettingSource>;
}
