import type fc from 'fast-check';
import { shortReport } from './fuzz-report.js';

/** Set by `npm run test:fuzz` (scripts/fuzz.mjs): the seed to explore from, the runs per property, a path to replay. */
const EXPLORATION = {
  seed: process.env['WEBUI_FUZZ_SEED'],
  runs: process.env['WEBUI_FUZZ_RUNS'],
  path: process.env['WEBUI_FUZZ_PATH'],
};

/** True under `npm run test:fuzz`: random seeds and many runs instead of the fixed ones. */
export const exploring = EXPLORATION.seed !== undefined && EXPLORATION.seed !== '';

function integerFrom(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`${name}=${JSON.stringify(text)} is not an integer`);
  return value;
}

/** The parameters a property runs with; assignable to fc.Parameters of any property. */
export interface PropertyParameters {
  seed: number;
  numRuns: number;
  endOnFailure?: boolean;
  path?: string;
  reporter: <T>(details: fc.RunDetails<T>) => void;
}

/**
 * fast-check parameters of one property. In `npm test` its own fixed seed and run count, so a commit
 * passes or fails the same way every time; under `npm run test:fuzz` the exploration's seed and runs
 * (and, to replay one failure, its path). Failures are reported short, with the seed and path.
 */
export function propertyParameters(fixed: { seed: number; numRuns: number; endOnFailure?: boolean }): PropertyParameters {
  const parameters: PropertyParameters = { ...fixed, reporter: shortReport };
  if (!exploring) return parameters;
  parameters.seed = integerFrom('WEBUI_FUZZ_SEED', EXPLORATION.seed as string);
  if (EXPLORATION.runs) parameters.numRuns = integerFrom('WEBUI_FUZZ_RUNS', EXPLORATION.runs);
  if (EXPLORATION.path) parameters.path = EXPLORATION.path;
  return parameters;
}
