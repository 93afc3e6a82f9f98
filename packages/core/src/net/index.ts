/** Addresses and networks as the core reads them: IPv4 and IPv6 addresses, CIDRs, loopback. */
export { parseIp, formatIp, isLoopbackIp, type IpAddress } from './ip-address.js';
export { parseCidr, anyCidrContains, type Cidr } from './cidr.js';
