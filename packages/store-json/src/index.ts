export { JsonFileStore, type JsonFileStoreOptions } from './json-file-store.js';
export type { StoreEvent } from './store-event.js';
export { nodeFileSystem, type FileSystem, type FileStats, type WritableFile } from './file-system.js';
export { RECORD_FILE_NAME } from './record-file.js';
export { processIsAlive } from './process-alive.js';
export { InstanceLock, InstanceLockError, LOCK_FILE_NAME } from './instance-lock.js';
