import { randomBytes } from 'node:crypto';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { parse, stringify, type TomlTable } from 'smol-toml';
import * as v from 'valibot';
import { StartupError } from '@webui/assembly';
import { BotSection, DEFAULT_BOT_SECTION } from './bot-section.js';

/**
 * bot.toml, the bot's own settings: its `[bot]` table is what the config routes serve. Every write replaces the file
 * atomically (a temporary file, synced, renamed over it), keeps every other table the operator wrote, and is 0600.
 */
export class BotConfigFile {
  private tables: TomlTable = {};
  // One write at a time: two PUTs at once must not both read the old file and one lose the other's table.
  private writes: Promise<unknown> = Promise.resolve();

  private constructor(readonly path: string) {}

  /** Reads the file, or starts from the defaults when there is none; a broken file stops the start, naming the file and the key. */
  static async open(path: string): Promise<BotConfigFile> {
    const file = new BotConfigFile(path);
    let text: string | null = null;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new StartupError(`cannot read ${path}: ${(error as Error).message}`);
    }
    if (text === null) {
      file.tables = { bot: { ...DEFAULT_BOT_SECTION } };
      return file;
    }
    try {
      file.tables = parse(text);
    } catch (error) {
      throw new StartupError(`${path} is not valid TOML: ${(error as Error).message.split('\n')[0]}`);
    }
    const section = v.safeParse(BotSection, file.tables['bot'] ?? DEFAULT_BOT_SECTION);
    if (!section.success) {
      const issue = section.issues[0];
      throw new StartupError(`${path}: bot.${issue ? (v.getDotPath(issue) ?? '') : ''}: ${issue?.message ?? 'invalid'}`);
    }
    file.tables['bot'] = section.output;
    return file;
  }

  /** The `[bot]` table as it is now. */
  section(): BotSection {
    return { ...(this.tables['bot'] as BotSection) };
  }

  /** Replaces the `[bot]` table on disk, then in memory: a failed write changes nothing. */
  replaceSection(section: BotSection): Promise<void> {
    const write = this.writes.then(async () => {
      const next = { ...this.tables, bot: { ...section } };
      await writeAtomically(this.path, stringify(next) + '\n');
      this.tables = next;
    });
    this.writes = write.catch(() => undefined);
    return write;
  }
}

async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    // A disk that filled up or went read-only leaves the old file whole and no temporary one beside it.
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}
