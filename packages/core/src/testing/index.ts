export { FakeClock } from './fake-clock.js';
export { SeededRandom } from './seeded-random.js';
export { MemoryStore } from '../memory/memory-store.js';
export { createCoreHarness } from './core-harness.js';
export { storeConformanceCases, type StoreConformanceHarness } from './conformance/store-conformance.js';
export { overwriteRecord } from './overwrite-record.js';
/** The login log's window, for tests that advance a fake clock across it. */
export { LOGIN_LOG_WINDOW_MS } from '../use-cases/events/login-log.js';
