/**
 * For authors of Store adapters: the plumbing the file and Redis stores are built from (serialised writes,
 * change listeners, record copies, the failure arithmetic, what a thrown error says). An application using the core needs none of it.
 */
export { SerialQueue } from './serial-queue.js';
export { RecordChangeListeners } from './record-change-listeners.js';
export { tallyFailure, clearable, type TalliedFailure } from './failure-tally.js';
export { sameTokenRecord } from './same-token-record.js';
export { copyTokenRecord } from './token-record-copy.js';
export { errorMessage, errorCode } from './thrown-error.js';
