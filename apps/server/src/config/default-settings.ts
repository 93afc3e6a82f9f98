import type { WebuiSettings } from './settings.js';

export const defaultSettings: Readonly<WebuiSettings> = Object.freeze({
  enabled: true,
  host: ['127.0.0.1', '::1'],
  port: 8001,
  secureCookie: false,
  trustedProxies: [],
  allowedIps: [],
  secretKey: undefined,
  sessionExpireDays: 7,
  mode: 'production',
  allowedOrigins: [],
  allowedHosts: [],
  logLevel: 'info',
});

export const defaultConfigPath = 'config/bot_config.toml';
export const defaultDataDir = './data';
