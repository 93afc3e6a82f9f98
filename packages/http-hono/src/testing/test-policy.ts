import type { HttpPolicy } from '../app-env.js';
import { cidrs, LISTEN_ORIGIN, type TestPolicyOptions } from './test-app.js';

/** The test app's policy on its own, for the tests of one pipeline step. */
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
