/** A configuration mistake, told in one line that names the key and where it was given. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
