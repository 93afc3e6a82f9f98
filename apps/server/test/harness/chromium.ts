import { chromium, type Browser, type Page } from 'playwright-core';

// Debian's Chromium (scripts/system-packages.mjs installs it), driven by playwright-core: no browser download.
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A headless Chromium for the page tests, with `args` after the suite's own flags. */
export function launchChromium(args: readonly string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...args] });
}

/** A WebSocket the page opened: its URL, the frames it received, whether it closed. */
export interface SocketRecord {
  url: string;
  received: string[];
  closed: boolean;
}

/** What a page did, recorded as it happens: its WebSockets, its console lines and its uncaught errors. */
export interface PageRecord {
  sockets: SocketRecord[];
  consoleMessages: string[];
  pageErrors: string[];
}

/** Starts recording `page`'s sockets, console and errors into the returned record. */
export function watchPage(page: Page): PageRecord {
  const record: PageRecord = { sockets: [], consoleMessages: [], pageErrors: [] };
  page.on('console', (message) => record.consoleMessages.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => record.pageErrors.push(error.message));
  page.on('websocket', (socket) => {
    const opened: SocketRecord = { url: socket.url(), received: [], closed: false };
    record.sockets.push(opened);
    socket.on('framereceived', (frame) => opened.received.push(String(frame.payload)));
    socket.on('close', () => (opened.closed = true));
  });
  return record;
}
