import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const README = fileURLToPath(new URL('../../../../docs/operations.md', import.meta.url));

/** The first ```<language> block after `heading` in docs/operations.md, so a test runs the very text the recipe shows. */
export function readmeBlock(heading: string, language: string): string {
  const readme = readFileSync(README, 'utf8');
  const at = readme.indexOf(heading);
  if (at < 0) throw new Error(`docs/operations.md has no "${heading}"`);
  const block = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(readme.slice(at))?.[1];
  if (block === undefined) throw new Error(`docs/operations.md has no \`\`\`${language} block after "${heading}"`);
  return block;
}

/** `text` with each `[from, to]` replaced, every `from` required to occur exactly the number of times given. */
export function substituted(text: string, replacements: ReadonlyArray<readonly [from: string, to: string, times: number]>): string {
  let result = text;
  for (const [from, to, times] of replacements) {
    const found = result.split(from).length - 1;
    if (found !== times) throw new Error(`the README recipe names ${JSON.stringify(from)} ${found} times, not ${times}`);
    result = result.split(from).join(to);
  }
  return result;
}
