import type fc from 'fast-check';

/**
 * fast-check's reporter, shortened: its own report prints the whole counterexample, which can be a
 * 60 KB message. Byte arrays are shown by their length.
 */
export function shortReport<T>(details: fc.RunDetails<T>): void {
  if (!details.failed) return;
  const example =
    JSON.stringify(details.counterexample, (_key, value: unknown) => (value instanceof Uint8Array ? `<${value.length} bytes>` : value)) ??
    'undefined';
  const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(
    `Property failed after ${details.numRuns} runs (seed ${details.seed}, path ${details.counterexamplePath}).\n` +
      `Replay it: WEBUI_FUZZ_SEED=${details.seed} WEBUI_FUZZ_PATH=${details.counterexamplePath ?? ''} npm run test:fuzz -- <this ` +
      `test file>\n` +
      `Counterexample (${example.length} chars): ${example.slice(0, 1_500)}${example.length > 1_500 ? '…' : ''}\n${error.slice(0, 1_500)}`,
  );
}
