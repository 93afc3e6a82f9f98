// The script on-every-runtime.test.ts bundles and runs under Node, Bun and Deno, against the real server behind a fault proxy.
// It prints one JSON line `{at, ...what it saw}` at each step and waits for the test's next stdin line, which arranges the
// next fault (a held, dropped or delayed request) before it answers. Arguments: the proxy's URL, the start token, a strong token.
import process from 'node:process';
import { createInterface } from 'node:readline';
import { createWebuiClient, WebuiError, type TokenChange, type WebuiClient } from '../index.js';

const [baseUrl = '', startToken = '', strongToken = ''] = process.argv.slice(2);
const input = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

function say(at: string, seen: object = {}): void {
  process.stdout.write(`${JSON.stringify({ at, ...seen })}\n`);
}

/** Says where the script is, then waits for the test's go. */
async function cue(at: string, seen: object = {}): Promise<void> {
  say(at, seen);
  if ((await input.next()).done) throw new Error(`stdin closed at ${at}`);
}

/** What a rejection was, as the test compares it. */
function failure(error: unknown): { name: string; status?: number; code?: string } {
  if (error instanceof WebuiError) return { name: error.name, status: error.status, code: error.code };
  return { name: error instanceof Error ? error.name : String(error) };
}

function change({ token, loggedIn, loginError }: TokenChange): object {
  return loginError === undefined ? { token, loggedIn } : { token, loggedIn, loginError: failure(loginError) };
}

/** A call that needs a session: after a failed re-login the client logs in by itself with the token it kept. */
async function tokenSource(client: WebuiClient): Promise<string> {
  return (await client.setupStatus()).token_source;
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => ({ name: 'resolved' }),
    (error: unknown) => failure(error),
  );

try {
  const client = createWebuiClient({ baseUrl, token: startToken });
  await cue('start', { valid: (await client.login()).valid });

  // The re-login after updateToken loses its connection.
  await cue('update-dropped', change(await client.updateToken(strongToken)));
  await cue('connection-back', { next: await tokenSource(client) });

  // The re-login after regenerateToken loses its connection too.
  await cue('regenerate-dropped', change(await client.regenerateToken()));
  await cue('connection-back-again', { next: await tokenSource(client) });

  // The re-login after regenerateToken meets a store that is gone (503); the test brings it back before the next call.
  await cue('regenerate-store-gone', change(await client.regenerateToken()));
  await cue('store-back', { next: await tokenSource(client) });

  // The re-login after regenerateToken meets a ban of the address; the next call comes from another one.
  await cue('regenerate-banned', change(await client.regenerateToken()));
  await cue('ban-elsewhere', { next: await tokenSource(client) });

  // Aborted while its re-login is held.
  const duringLogin = new AbortController();
  const loginAborted = client.regenerateToken({ signal: duringLogin.signal });
  await cue('regenerate-login-held');
  duringLogin.abort();
  await cue('regenerate-login-aborted', { ...change(await loginAborted), next: await tokenSource(client) });

  // Aborted while the regenerate request itself is held: the answer that carries the token is still waited for.
  const whileSent = new AbortController();
  const sentAborted = client.regenerateToken({ signal: whileSent.signal });
  await cue('regenerate-held');
  whileSent.abort();
  await cue('regenerate-aborted-while-sent');
  await cue('regenerate-answered', { ...change(await sentAborted), next: await tokenSource(client) });

  // Aborted before anything was sent: nothing changed.
  const before = client.token;
  const refused = await rejection(client.regenerateToken({ signal: AbortSignal.abort() }));
  await cue('regenerate-aborted-before', { refused, kept: client.token === before, next: await tokenSource(client) });

  // A call aborted while its request is held.
  const statusCall = new AbortController();
  const statusAborted = rejection(client.setupStatus({ signal: statusCall.signal }));
  await cue('status-held');
  statusCall.abort();
  await cue('status-aborted', await statusAborted);

  // The client's default timeout, shortened.
  const impatient = createWebuiClient({ baseUrl, token: client.token, timeoutMs: 1_000 });
  await cue('health-timed-out', await rejection(impatient.health()));

  // openChannel aborted while its upgrade is held, then an open channel aborted.
  const channelCall = new AbortController();
  const channelAborted = rejection(client.openChannel({ signal: channelCall.signal }));
  await cue('channel-held');
  channelCall.abort();
  await cue('channel-aborted', await channelAborted);

  const channelLife = new AbortController();
  const channel = await client.openChannel({ signal: channelLife.signal });
  await cue('channel-open', { pong: typeof (await channel.ping()) });
  channelLife.abort();
  const closed = await channel.closed;
  say('channel-closed', closed);
} catch (error) {
  say('crashed', { error: failure(error), message: error instanceof Error ? error.stack : String(error) });
  process.exitCode = 1;
} finally {
  // Nothing else may keep the runtime alive: the test waits for it to exit by itself.
  await input.return?.();
}
