/**
 * Whether a request's URL carries userinfo (`http://user:pass@host/...`), which only an absolute-form request-target puts
 * there: RFC 9110 §4.2.4 makes it an error, and a web Request cannot even be built from such a URL.
 */
export function hasUserinfo(url: string): boolean {
  const at = url.indexOf('@');
  if (at === -1) return false;
  const scheme = url.indexOf('//');
  if (scheme === -1) return false;
  // The authority ends at the first '/', '?' or '#' after '//'; an '@' beyond it belongs to the path or the query.
  for (let i = scheme + 2; i < at; i++) {
    const code = url.charCodeAt(i);
    if (code === 0x2f || code === 0x3f || code === 0x23) return false;
  }
  return true;
}
