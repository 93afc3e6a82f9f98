/** Takes `?token=` out of the address bar (without a reload) and returns it, trimmed; null when absent or blank. */
export function takeTokenFromUrl(): string | null {
  const url = new URL(window.location.href);
  if (!url.searchParams.has('token')) return null;
  // Read the raw value: URLSearchParams turns '+' into a space, and '+' is a valid token character.
  const raw = /(?:^|&)token=([^&]*)/.exec(url.search.slice(1))?.[1] ?? '';
  let token = raw;
  try {
    token = decodeURIComponent(raw);
  } catch {
    // Malformed escapes: keep the text as typed.
  }
  url.searchParams.delete('token');
  window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
  return token.trim() === '' ? null : token.trim();
}
