/** Why a request to the WebSocket endpoint cannot be upgraded (RFC 6455 §4.2.1), as a refusal (docs/decisions/0001-error-bodies.md). */
export interface HandshakeRefusal {
  status: 400 | 426;
  code: 'upgrade_required' | 'unsupported_websocket_version' | 'bad_websocket_key' | 'bad_websocket_protocol';
  detail: string;
  /** Headers RFC 6455 and RFC 9110 ask a refusal to carry. */
  headers: Record<string, string>;
}

/** The only version RFC 6455 defines. */
const WEBSOCKET_VERSION = '13';
/** Base64 of 16 bytes, the only Sec-WebSocket-Key a client may send (and what ws accepts). */
const KEY = /^[+/0-9A-Za-z]{22}==$/;
/** RFC 9110 token characters; a subprotocol is a token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const hasToken = (list: string | undefined, token: string) => list?.split(',').some((item) => item.trim().toLowerCase() === token) ?? false;

/** A comma-separated list of distinct tokens, as Sec-WebSocket-Protocol must be. */
function isProtocolList(value: string): boolean {
  const items = value.split(',').map((item) => item.trim());
  return items.every((item) => TOKEN.test(item)) && new Set(items).size === items.length;
}

/**
 * Checks every handshake header before the ticket is spent, so that what the runtime's own
 * upgrade (ws, Bun, Deno) would refuse with a bare status is refused here with the error body (docs/decisions/0001-error-bodies.md).
 */
export function handshakeRefusal(header: (name: string) => string | undefined): HandshakeRefusal | undefined {
  if (header('upgrade')?.trim().toLowerCase() !== 'websocket' || !hasToken(header('connection'), 'upgrade')) {
    return {
      status: 426,
      code: 'upgrade_required',
      detail: 'This endpoint only accepts WebSocket upgrades (Connection: Upgrade, Upgrade: websocket).',
      headers: { Upgrade: 'websocket' },
    };
  }
  if (header('sec-websocket-version')?.trim() !== WEBSOCKET_VERSION) {
    return {
      status: 426,
      code: 'unsupported_websocket_version',
      detail: 'Only WebSocket version 13 is supported (Sec-WebSocket-Version: 13).',
      headers: { 'Sec-WebSocket-Version': WEBSOCKET_VERSION },
    };
  }
  if (!KEY.test(header('sec-websocket-key')?.trim() ?? '')) {
    return { status: 400, code: 'bad_websocket_key', detail: 'Sec-WebSocket-Key must be 16 random bytes in base64.', headers: {} };
  }
  const protocols = header('sec-websocket-protocol');
  if (protocols !== undefined && !isProtocolList(protocols)) {
    return {
      status: 400,
      code: 'bad_websocket_protocol',
      detail: 'Sec-WebSocket-Protocol must be a list of distinct tokens.',
      headers: {},
    };
  }
  return undefined;
}
