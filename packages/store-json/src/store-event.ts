/** What the store tells its owner about, for the log; none of these stop the server. */
export type StoreEvent =
  /** The file held invalid JSON or the wrong shape at startup and was kept aside, never deleted. */
  | { kind: 'corrupt-file-moved'; path: string; movedTo: string; reason: string }
  /** The data directory or the token file lets group or others in; `fixed` says whether the store narrowed it (files only). */
  | { kind: 'insecure-permissions'; path: string; mode: number; fixed: boolean }
  /** A hand edit of the file was picked up. */
  | { kind: 'reloaded'; path: string }
  /** A hand edit was invalid (or the file vanished); the last good record stays in force. */
  | { kind: 'reload-refused'; path: string; reason: string }
  /** An onRecordChanged listener threw; the change itself stands. */
  | { kind: 'listener-failed'; reason: string };
