import { assembleWebui, type AssembledWebui, type WebuiParts } from '../assemble-webui.js';
import type { Bound } from './listen-on-hosts.js';

export interface StartedWebui<Server> {
  webui: AssembledWebui;
  servers: Array<Bound<Server>>;
}

/**
 * Every runtime's startup, in one order: open the storage, assemble, listen (the runtime's part),
 * announce. What a failed step leaves behind is closed again, so the data directory is never left locked.
 */
export async function startWebui<Server>(
  parts: WebuiParts,
  listen: (webui: AssembledWebui) => Promise<Array<Bound<Server>>>,
  banner?: { write(text: string): unknown },
): Promise<StartedWebui<Server>> {
  await parts.storage.open();
  let webui: AssembledWebui;
  try {
    webui = await assembleWebui(parts);
  } catch (error) {
    await parts.storage.close();
    throw error;
  }
  let servers: Array<Bound<Server>>;
  try {
    servers = await listen(webui);
  } catch (error) {
    await webui.close();
    throw error;
  }
  for (const { host, port } of servers) webui.listening.push({ host, port });
  // The startup's own audit lines (a temporary token, a revocation) are on disk before the server says it is up.
  await webui.audit.written?.();
  webui.announce(banner);
  return { webui, servers };
}
