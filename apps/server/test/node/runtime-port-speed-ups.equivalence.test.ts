import { nodeRuntimePort, TOKENS } from '@webui/assembly/node';
import type { RuntimePort } from '@webui/http-hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seenAnswer, startInProcessServer, type InProcessServer } from '../harness/processes/in-process-server.js';
import { rawExchange } from '../harness/clients/raw-exchange.js';

/**
 * The Node runtime port's speed-ups (headers read by incoming-header.ts, bodies by incoming-body.ts,
 * Cache-Control preset on Node's response) answer exactly as the app does through Hono's own Request:
 * two in-process servers started alike, one with the speed-ups and one with only getConnInfo and isTls,
 * get the same requests and must give the same answers, one for one.
 */

// serve() takes the runtime port from the container: this one has only getConnInfo and isTls, none of the speed-ups.
const withoutSpeedUpsPort: RuntimePort = { getConnInfo: nodeRuntimePort.getConnInfo, isTls: nodeRuntimePort.isTls };

let withSpeedUps: InProcessServer;
let withoutSpeedUps: InProcessServer;

beforeAll(async () => {
  withSpeedUps = await startInProcessServer();
  withoutSpeedUps = await startInProcessServer(7, (container) => container.register(TOKENS.RuntimePort, { useValue: withoutSpeedUpsPort }));
});
afterAll(async () => {
  await withSpeedUps.close();
  await withoutSpeedUps.close();
});

const HOST = 'Host: 127.0.0.1:8001\r\n';
const JSON_TYPE = 'Content-Type: application/json\r\n';
// rawExchange writes latin1: one byte a character.
const withLength = (body: string) => `Content-Length: ${Buffer.byteLength(body, 'latin1')}\r\n`;
const verify = (token: string, extra = '') => {
  const body = JSON.stringify({ token });
  return { head: `POST /api/webui/auth/verify HTTP/1.1\r\n${HOST}${JSON_TYPE}${extra}${withLength(body)}`, body };
};

describe('the Node runtime port speed-ups and Hono give the same answers', () => {
  it('to the same sequence of requests from the same addresses', async () => {
    const token = withSpeedUps.token;
    expect(withoutSpeedUps.token).toBe(token);
    // A UTF-8 BOM, as its three bytes.
    const bom = `\xEF\xBB\xBF${JSON.stringify({ token })}`;
    const big = JSON.stringify({ token: 'x'.repeat(200_000) });
    const requests: Array<{ head: string; body?: string; from: string }> = [
      { ...verify(token), from: '127.0.0.30' },
      { ...verify('wrong-1'), from: '127.0.0.31' },
      { ...verify(token, 'Content-Type: text/plain\r\n'), from: '127.0.0.32' },
      { head: `POST /api/webui/auth/verify HTTP/1.1\r\n${HOST}${JSON_TYPE}${withLength(bom)}`, body: bom, from: '127.0.0.33' },
      { head: `POST /api/webui/auth/verify HTTP/1.1\r\n${HOST}${JSON_TYPE}${withLength(big)}`, body: big, from: '127.0.0.34' },
      {
        head: `POST /api/webui/auth/verify HTTP/1.1\r\n${HOST}${JSON_TYPE}${withLength('{"token":')}`,
        body: '{"token":',
        from: '127.0.0.35',
      },
      { head: `GET /api/webui/setup/status HTTP/1.1\r\n${HOST}Cookie: bot_session=${token}\r\n`, from: '127.0.0.36' },
      { head: `GET /api/webui/setup/status HTTP/1.1\r\n${HOST}`, from: '127.0.0.36' },
      {
        head: `GET /api/webui/auth/check? HTTP/1.1\r\n${HOST}Authorization: Bearer ${token}\r\nAuthorization: Bearer wk_other\r\n`,
        from: '127.0.0.37',
      },
      { head: `GET /api/webui/auth/check? HTTP/1.1\r\n${HOST}Host: evil.example\r\nCookie: bot_session=${token}\r\n`, from: '127.0.0.38' },
      { head: `GET /api/webui/health HTTP/1.1\r\n${HOST}`, from: '127.0.0.39' },
      ...Array.from({ length: 6 }, (_, n) => ({
        head: `GET /api/webui/auth/check? HTTP/1.1\r\n${HOST}Cookie: bot_session=bad-${n}\r\n`,
        from: '127.0.0.40',
      })),
    ];
    for (const { head, body = '', from } of requests) {
      const fast = seenAnswer(await rawExchange(withSpeedUps.port, head, body, from));
      const plain = seenAnswer(await rawExchange(withoutSpeedUps.port, head, body, from));
      expect(fast, head).toEqual(plain);
    }
  });
});
