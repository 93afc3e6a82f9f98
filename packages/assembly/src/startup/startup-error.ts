/** A reason the server cannot start that the operator can fix; printed as one line, no stack. */
export class StartupError extends Error {}
