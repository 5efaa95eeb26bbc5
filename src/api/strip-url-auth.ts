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

/**
 * What a message shows of a URL whose path or query is its secret (a Slack-style webhook, a
 * Pushgateway behind a token in its path): the scheme and host, and `/...` when more followed,
 * never the credentials. Text that is not a URL is cut at its first `/`, `?` or `#` after the
 * scheme, so `hooks.slack.com/services/T0/B0/secret` shows as `hooks.slack.com/...`.
 */
export function urlOriginOnly(url: string): string {
  const text = stripUrlAuth(url);
  const parsed = URL.canParse(text) ? new URL(text) : undefined;
  // `host:9091/path` parses with `host:` as its scheme and no host: cut as text.
  if (parsed !== undefined && parsed.host !== '') {
    const more = parsed.pathname.replace(/^\/$/, '') !== '' || parsed.search !== '' || parsed.hash !== '';
    return `${parsed.protocol}//${parsed.host}${more ? '/...' : ''}`;
  }
  const [, head = '', rest = ''] = /^((?:[a-z][a-z0-9+.-]*:\/\/)?[^/?#]*)(.*)$/is.exec(text) ?? [];
  return `${head}${rest === '' ? '' : '/...'}`;
}
