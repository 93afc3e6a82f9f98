import { MountError } from '../../../mount/mount-error.js';
import type { ChannelDomainPort } from './channel-domain-port.js';
import { domainShapeProblem } from './channel-scope.js';

const DOMAIN_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** The hub's own events (ready); no domain may take the name. */
export const RESERVED_DOMAIN = 'system';

/** The domains a hub serves, by name, in the order given; a name taken, reserved or malformed is a MountError. */
export function domainRegistry(domains: readonly ChannelDomainPort[]): ReadonlyMap<string, ChannelDomainPort> {
  const byName = new Map<string, ChannelDomainPort>();
  for (const domain of domains) {
    const name: unknown = domain.name;
    const what = `channel domain ${JSON.stringify(name).slice(0, 100)}`;
    if (typeof name !== 'string' || !DOMAIN_NAME.test(name))
      throw new MountError(what, 'a name is a lowercase letter, then up to 63 lowercase letters, digits or _');
    if (name === RESERVED_DOMAIN) throw new MountError(what, 'the name is reserved for the channel itself');
    if (byName.has(name))
      throw new MountError(what, 'another domain has that name (the built-in ones are logs, plugin_progress and security)');
    const problem = domainShapeProblem(domain.scope, domain.topics);
    if (problem !== null) throw new MountError(what, problem);
    byName.set(name, domain);
  }
  return byName;
}
