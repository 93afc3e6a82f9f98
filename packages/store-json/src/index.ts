export { JsonFileStore, type JsonFileStoreOptions } from './json-file-store.js';
export type { StoreEvent } from './store-event.js';
export { nodeFileSystem, type FileSystem, type FileStats, type WritableFile } from './file/file-system.js';
export { RECORD_FILE_NAME } from './record/record-file.js';
export { processIsAlive } from './process/process-alive.js';
export { InstanceLock, InstanceLockError, LOCK_FILE_NAME } from './process/instance-lock.js';
export {
  AuditLogFile,
  AUDIT_LOG_FILE_NAME,
  DEFAULT_AUDIT_KEEP,
  DEFAULT_AUDIT_MAX_BYTES,
  type AuditLogFileOptions,
} from './audit/audit-log-file.js';
export { parseAuditLine, readAuditLog, type AuditLogFilter, type AuditLogRead } from './audit/audit-log-reader.js';
export { readRecordFile, type RecordFileRead } from './record/record-file-read.js';
