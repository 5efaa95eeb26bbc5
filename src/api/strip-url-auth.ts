/**
 * Removes the userinfo (`user:password@`) of URLs before they are shown, like got's
 * `strip-url-auth`: a URL in a message, a log or a report must never carry credentials. The one
 * place that does it: config messages, client errors and the Redis limiter all come here.
 * Text that is not one URL has anything between `//` and an `@` removed, wherever it stands.
 */
export function stripUrlAuth(url: string | URL): string {
  const text = typeof url === 'string' ? url : url.href;
  if (!URL.canParse(text)) return text.replace(/\/\/[^/@\s]*@/g, '//');
  const parsed = new URL(text);
  if (parsed.username === '' && parsed.password === '') return text;
  parsed.username = '';
  parsed.password = '';
  return parsed.href;
}
