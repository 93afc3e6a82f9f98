/** The [webui] settings of the server, after defaults, file, environment and flags are merged. */
export interface WebuiSettings {
  enabled: boolean;
  host: string[];
  // 0 asks the system for any free port, which tests use.
  port: number;
  secureCookie: boolean;
  trustedProxies: string[];
  allowedIps: string[];
  secretKey: string | undefined;
  sessionExpireDays: number;
  mode: 'production' | 'development';
  allowedOrigins: string[];
  allowedHosts: string[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
}

export type SettingName = keyof WebuiSettings;

/** The key each setting has inside the [webui] table of the config file. */
export const settingFileKeys = {
  enabled: 'enabled',
  host: 'host',
  port: 'port',
  secureCookie: 'secure_cookie',
  trustedProxies: 'trusted_proxies',
  allowedIps: 'allowed_ips',
  secretKey: 'secret_key',
  sessionExpireDays: 'session_expire',
  mode: 'mode',
  allowedOrigins: 'allowed_origins',
  allowedHosts: 'allowed_hosts',
  logLevel: 'log_level',
} as const satisfies Record<SettingName, string>;

// Object.keys loses the key type; the satisfies above guarantees every setting is listed.
export const settingNames = Object.keys(settingFileKeys) as SettingName[];
