/**
 * A route group or channel domain that cannot be mounted (a path outside the prefix, one this server already
 * answers, a duplicate, a domain name taken): the assembly turns it into a startup error that names the path.
 */
export class MountError extends Error {
  override readonly name = 'MountError';

  constructor(
    /** The path or domain name the mount was refused for. */
    readonly what: string,
    /** Why, as the rest of the startup error's sentence. */
    readonly why: string,
  ) {
    super(`cannot mount ${what}: ${why}`);
  }
}
