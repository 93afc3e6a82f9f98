/** Thrown by a channel call's handler to answer `ok:false` with its own code and message (anything else thrown is `internal_error`). */
export class ChannelCallError extends Error {
  override readonly name = 'ChannelCallError';

  constructor(
    /** The error code the client gets, e.g. `not_found`. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
