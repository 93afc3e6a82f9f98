import { OPERATIONS, type Operation } from '../openapi/operations.js';

/** The documented operations at these paths (below the prefix), in the order OPERATIONS lists them. */
export function operationsAt(...paths: string[]): Operation[] {
  return OPERATIONS.filter((operation) => paths.includes(operation.path));
}
