/** What the store tells its owner about, for the log; none of these stop the server. */
export type RedisStoreEvent =
  /** The command connection dropped; every Store method but readRecord fails with StoreUnavailableError until it is back. */
  | { kind: 'connection-lost'; address: string; reason: string }
  /** The command connection is back; nothing needs a restart. */
  | { kind: 'connection-restored'; address: string }
  /** Redis came back without the record (restarted without persistence) and this instance wrote its last known record back. */
  | { kind: 'record-restored'; address: string }
  /** Redis held (or a message carried) something that is not a token record; the last known record stays in force. */
  | { kind: 'record-refused'; address: string; reason: string }
  /** Redis runs under a maxmemory-policy other than noeviction (`masters`: "host:port policy" each): a full Redis may evict a running ban. */
  | { kind: 'evicting-policy'; address: string; masters: string[] }
  /** The state of the key layout before hash tags (bans, counts, logins, the budget) was carried into this one, and the old keys deleted. */
  | { kind: 'layout-upgraded'; address: string; carried: number }
  /** An onRecordChanged listener threw; the change itself stands. */
  | { kind: 'listener-failed'; reason: string };
