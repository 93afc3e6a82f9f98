/** YYYY-MM-DD HH:MM:SS in the machine's time zone: what an operator compares with the clock on the wall. */
export function localTime(isoTime: string): string {
  const at = new Date(isoTime);
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ` +
    `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`
  );
}
