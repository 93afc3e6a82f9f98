import { NetworkError } from './page-client.js';
import { setText } from './page-view.js';

/** Disables a button while its request runs, so a double click sends one request. */
export async function busy(button: HTMLButtonElement | null, work: () => Promise<void>): Promise<void> {
  if (!button) return work();
  button.disabled = true;
  try {
    await work();
  } finally {
    button.disabled = false;
  }
}

/** Runs a handler; a network failure or a bug becomes a message instead of an unhandled rejection. */
export async function guarded(work: () => Promise<void>, errorTarget: HTMLElement, reveal?: () => void): Promise<void> {
  try {
    await work();
  } catch (error) {
    setText(
      errorTarget,
      error instanceof NetworkError ? error.message : `Something went wrong: ${error instanceof Error ? error.message : String(error)}`,
    );
    reveal?.();
  }
}
