/** How long an armed button waits for the second press before it stands down. */
const ARMED_MS = 5_000;

/**
 * A button that acts on its second press: the first arms it, its label asking to confirm, for five
 * seconds. Unlike confirm(), nothing blocks the page, and a stray click changes nothing.
 */
export function onConfirmedPress(button: HTMLButtonElement, confirmLabel: string, action: () => void): void {
  const label = button.textContent ?? '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const standDown = () => {
    clearTimeout(timer);
    timer = undefined;
    button.textContent = label;
    button.classList.remove('armed');
  };
  button.addEventListener('click', () => {
    if (timer === undefined) {
      button.textContent = confirmLabel;
      button.classList.add('armed');
      timer = setTimeout(standDown, ARMED_MS);
      return;
    }
    standDown();
    action();
  });
  button.addEventListener('blur', standDown);
}
