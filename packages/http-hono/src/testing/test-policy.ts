import { parseCidr, type Cidr } from '@webui/core/net';
import type { HttpPolicy } from '../app-env.js';

/** The origin the test app says it listens on. */
export const LISTEN_ORIGIN = 'http://127.0.0.1:8001';

export function cidrs(texts: readonly string[]): Cidr[] {
  return texts.map((text) => {
    const cidr = parseCidr(text);
    if (!cidr) throw new Error(`bad CIDR in test: ${text}`);
    return cidr;
  });
}

export interface TestPolicyOptions extends Partial<Omit<HttpPolicy, 'trustedProxies' | 'allowedIps'>> {
  trustedProxies?: string[];
  allowedIps?: string[];
}

/** The test app's policy on its own, for the tests of one pipeline step; createTestApp uses the same. */
export function testPolicy(options: TestPolicyOptions = {}): HttpPolicy {
  const { trustedProxies = [], allowedIps = [], ...rest } = options;
  return {
    serviceName: 'webui-test',
    mode: 'development',
    secureCookie: false,
    sessionExpireDays: 7,
    allowedOrigins: [],
    allowedHosts: [],
    listenOrigins: () => [LISTEN_ORIGIN],
    loopbackOnly: true,
    ...rest,
    trustedProxies: cidrs(trustedProxies),
    allowedIps: cidrs(allowedIps),
  };
}
