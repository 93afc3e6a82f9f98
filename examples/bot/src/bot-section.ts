import * as v from 'valibot';

/** The `[bot]` table of bot.toml: what the config routes read and replace, validated the same way on both. */
export const BotSection = v.strictObject({
  nickname: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(32), v.description('The name the bot answers to.')),
  greeting: v.pipe(v.string(), v.maxLength(200), v.description('What the bot says when someone joins.')),
  reply_probability: v.pipe(v.number(), v.minValue(0), v.maxValue(1), v.description('How often it answers a message it was not asked.')),
});

export type BotSection = v.InferOutput<typeof BotSection>;

/** What a fresh bot.toml holds. */
export const DEFAULT_BOT_SECTION: BotSection = { nickname: 'ExampleBot', greeting: 'Hello!', reply_probability: 0.5 };
