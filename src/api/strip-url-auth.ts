/**
 * Removes the userinfo (`user:password@`) of a URL before it is shown, like got's
 * `strip-url-auth`: a URL in a message, a log or a report must never carry credentials.
 * Text that is not a URL is returned with anything up to an `@` after `//` removed.
 */
export function stripUrlAuth(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : new URL(url.href);
  } catch {
    return String(url).replace(/\/\/[^/@]*@/, '//');
  }
  parsed.username = '';
  parsed.password = '';
  return parsed.href;
}
