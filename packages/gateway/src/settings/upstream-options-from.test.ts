import { describe, expect, it } from 'vitest';
import type { UpstreamSettings } from './upstream-settings.js';
import { UNIX_SOCKET_ORIGIN, upstreamOptionsFrom } from './upstream-options-from.js';

const transport = async (): Promise<Response> => new Response(null, { status: 204 });
const assertion = (): string => 'signed';

const settings: UpstreamSettings = {
  url: 'http://127.0.0.1:8002',
  paths: ['/api/webui', '/api/chat'],
  publicPaths: ['/api/webui/version-compatibility'],
  headers: { Cookie: 'maibot_session=abc' },
  headerTemplates: { Cookie: 'maibot_session=${MAIBOT_TOKEN}' },
  timeoutSeconds: 30,
};

describe('upstreamOptionsFrom', () => {
  it('takes the origin, paths, expanded headers and the timeout in milliseconds, with the runtime parts', () => {
    expect(upstreamOptionsFrom(settings, { transport, assertion })).toEqual({
      origin: 'http://127.0.0.1:8002',
      paths: ['/api/webui', '/api/chat'],
      publicPaths: ['/api/webui/version-compatibility'],
      headers: { Cookie: 'maibot_session=abc' },
      timeoutMs: 30_000,
      transport,
      assertion,
    });
  });

  it('leaves the assertion out when there is no signer', () => {
    expect(upstreamOptionsFrom(settings, { transport })).not.toHaveProperty('assertion');
  });

  it('addresses a Unix socket upstream to a placeholder origin, its transport dialling the socket', () => {
    const options = upstreamOptionsFrom({ ...settings, url: 'unix:/run/bot.sock', socketPath: '/run/bot.sock' }, { transport });
    expect(options.origin).toBe(UNIX_SOCKET_ORIGIN);
  });

  it('turns fractions of a second into whole milliseconds, never 0', () => {
    expect(upstreamOptionsFrom({ ...settings, timeoutSeconds: 0.25 }, { transport }).timeoutMs).toBe(250);
    expect(upstreamOptionsFrom({ ...settings, timeoutSeconds: 0.0001 }, { transport }).timeoutMs).toBe(1);
  });

  it('copies the lists and headers, so the options do not share them with the settings', () => {
    const options = upstreamOptionsFrom(settings, { transport });
    expect(options.paths).not.toBe(settings.paths);
    expect(options.headers).not.toBe(settings.headers);
  });
});
