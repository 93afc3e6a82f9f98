import { join } from 'node:path';

const CONTROL_SOCKET_NAME = 'webui.sock';

// A Unix socket path must fit sockaddr_un.sun_path: 108 bytes on Linux, 104 on macOS and the BSDs, the final NUL included.
const MAX_SOCKET_PATH_BYTES = process.platform === 'linux' ? 107 : 103;

/** Where the server's control socket lives in a data directory, or why it cannot live there. */
export type ControlSocketPlace =
  | { kind: 'usable'; path: string }
  | { kind: 'too-long'; path: string; bytes: number; maxBytes: number }
  // Windows has no Unix sockets in every version we run on; `webui bans` is not offered there.
  | { kind: 'unsupported'; path: string };

/** The one rule the server and the CLI share, so both agree on where to meet and when not to try. */
export function controlSocketPlace(dataDir: string, platform: NodeJS.Platform = process.platform): ControlSocketPlace {
  const path = join(dataDir, CONTROL_SOCKET_NAME);
  if (platform === 'win32') return { kind: 'unsupported', path };
  const bytes = Buffer.byteLength(path);
  if (bytes > MAX_SOCKET_PATH_BYTES) return { kind: 'too-long', path, bytes, maxBytes: MAX_SOCKET_PATH_BYTES };
  return { kind: 'usable', path };
}
