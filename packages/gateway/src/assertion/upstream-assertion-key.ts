import type { RandomSource } from '@webui/core';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { errorCode, errorMessage } from '@webui/core/adapter';
import { GatewayStartupError } from '../gateway-startup-error.js';
import { ASSERTION_SECRET_BYTES } from './upstream-assertion.js';

/** In the data directory: the secret X-WebUI-Assertion is signed with, for an upstream that verifies it to read. */
export const ASSERTION_KEY_FILE = 'upstream-assertion.key';

const KEY_MODE = 0o600;
// Windows reports synthetic mode bits, so a mode check there would refuse every file.
const CHECKS_MODES = process.platform !== 'win32';

/**
 * The assertion secret of `<dataDir>/upstream-assertion.key` (which must exist): made once with 32 random bytes, 0600, then
 * reused. A file of another size, or readable or writable by more than its owner, is a GatewayStartupError naming it.
 */
export async function loadAssertionKey(dataDir: string, random: RandomSource): Promise<Uint8Array> {
  const path = join(dataDir, ASSERTION_KEY_FILE);
  return (await makeKeyFile(path, random)) ?? (await readKeyFile(path));
}

/** A new key file with a new secret, or undefined when the file exists already. */
async function makeKeyFile(path: string, random: RandomSource): Promise<Uint8Array | undefined> {
  let file: FileHandle;
  try {
    // "wx" (O_EXCL): never over a file that is there, nor through a link planted at its name.
    file = await open(path, 'wx', KEY_MODE);
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return undefined;
    throw new GatewayStartupError(`cannot make ${path}: ${reasonOf(error)}`);
  }
  const secret = random.bytes(ASSERTION_SECRET_BYTES);
  try {
    await file.writeFile(secret);
    await file.sync();
    await file.close();
  } catch (error) {
    // A short file would be refused at the next start: none is better.
    await file.close().catch(() => undefined);
    await rm(path, { force: true }).catch(() => undefined);
    throw new GatewayStartupError(`cannot write ${path}: ${reasonOf(error)}`);
  }
  return secret;
}

async function readKeyFile(path: string): Promise<Uint8Array> {
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch (error) {
    throw new GatewayStartupError(`cannot read ${path}: ${reasonOf(error)}`);
  }
  try {
    // The open file's own stats: what is read is what was checked.
    const stats = await file.stat();
    if (!stats.isFile()) throw new GatewayStartupError(`${path} is not a file; move it away and a new upstream assertion key is made`);
    const mode = stats.mode & 0o777;
    if (CHECKS_MODES && (mode & ~KEY_MODE) !== 0)
      throw new GatewayStartupError(
        `${path} has mode 0${mode.toString(8)}: it holds the upstream assertion secret, so only its owner may read it (chmod 600 ${path})`,
      );
    const wrongSize = (): GatewayStartupError =>
      new GatewayStartupError(
        `${path} holds ${stats.size} bytes, not the ${ASSERTION_SECRET_BYTES} of an upstream assertion key; ` +
          'remove it and a new one is made (an upstream that verifies the assertion then needs the new one)',
      );
    if (stats.size !== ASSERTION_SECRET_BYTES) throw wrongSize();
    const secret = new Uint8Array(ASSERTION_SECRET_BYTES);
    const { bytesRead } = await file.read(secret, 0, ASSERTION_SECRET_BYTES, 0);
    if (bytesRead !== ASSERTION_SECRET_BYTES) throw wrongSize();
    return secret;
  } catch (error) {
    throw error instanceof GatewayStartupError ? error : new GatewayStartupError(`cannot read ${path}: ${reasonOf(error)}`);
  } finally {
    await file.close();
  }
}

const reasonOf = (error: unknown): string => errorCode(error) ?? errorMessage(error);
