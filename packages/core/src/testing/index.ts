export { FakeClock } from './fake-clock.js';
export { SeededRandom } from './seeded-random.js';
export { MemoryStore } from '../memory-store.js';
export { createCoreHarness } from './core-harness.js';
export { storeConformanceCases, type StoreConformanceHarness } from './store-conformance.js';
export { overwriteRecord } from './overwrite-record.js';
export { RecordingAuditSink, RecordingEventSink, RecordingLogger, type LoggedLine } from './recording-sinks.js';
