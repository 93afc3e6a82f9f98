// The core's, where the audit sink is declared; re-exported for the app's and the runtimes' answers.
export { afterAuditWritten } from '@webui/core';
