import type { Core } from '../create-core.js';
import { createAccessOperations, type AccessOperations } from './access-operations.js';
import type { Pause } from './attempts.js';
import type { OperationEventSink } from './events/event-recorder.js';
import { createOperatorOperations, type OperatorOperations } from './operator-operations.js';

/** Every verb of the WebUI: what a client presents (AccessOperations) and what an operator changes (OperatorOperations). */
export type WebuiOperations = AccessOperations & OperatorOperations;

/**
 * The verbs over a core built by createCore. `sink`: where their events go (an EventRecorder: the audit trail
 * and the log); `pause`: how to wait out the global budget's delay.
 */
export function createWebuiOperations(core: Core, options: { sink: OperationEventSink; pause: Pause }): WebuiOperations {
  return { ...createAccessOperations(core, options), ...createOperatorOperations(core, options) };
}
