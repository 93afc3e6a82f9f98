/** Addresses and networks as the core reads them: IPv4 and IPv6 addresses, CIDRs, loopback, `unix:` socket paths. */
export { parseIp, formatIp, isLoopbackIp, clientKey, type IpAddress } from './ip-address.js';
export { parseCidr, anyCidrContains, type Cidr } from './cidr.js';
export { isAbsoluteSocketPath, unixSocketPath, UNIX_SOCKET_PREFIX } from './unix-socket.js';
