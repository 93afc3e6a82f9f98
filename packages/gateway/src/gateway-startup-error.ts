/**
 * A reason the gateway cannot open that the operator can fix: an upstream this runtime's client cannot reach, an assertion key
 * file it cannot make or trust. Told in one line; the assembly reports it as its StartupError.
 */
export class GatewayStartupError extends Error {
  override name = 'GatewayStartupError';
}
