/**
 * Removes the credentials of URLs before they are shown, like got's `strip-url-auth` and more: a
 * URL in a message, a log or a report must never carry them. Both forms go (issue 42): the
 * userinfo (`user:password@`) and a query parameter that holds a secret (`password`, `token`,
 * `key` and names holding them or `secret`: `?password=`, `access_token=`, `api_key=`, as Redis
 * and other clients read a URL's query). The one place that does it: config messages, client
 * errors and the Redis limiter all come here. Text that is not one URL has anything between `//`
 * and an `@` removed, and the values of such parameters, wherever they stand; in a URL too, the
 * parameter's name stays with an empty value.
 */

/** The query parameters whose value is a credential, by name (any case): `password`, `pass`, `pwd`, `token`, `key`, `secret`, and names holding them. */
const SECRET_PARAMETER = /pass(?:word|wd)?|pwd|token|key|secret|auth/i;
/** Such a parameter inside free text: its name (kept) and its value (removed). */
const SECRET_PARAMETER_IN_TEXT = /([?&;][^=&#\s?;]*(?:pass(?:word|wd)?|pwd|token|key|secret|auth)[^=&#\s?;]*=)[^&#\s;]*/gi;

export function stripUrlAuth(url: string | URL): string {
  const text = typeof url === 'string' ? url : url.href;
  if (!URL.canParse(text)) return text.replace(/\/\/[^/@\s]*@/g, '//').replace(SECRET_PARAMETER_IN_TEXT, '$1');
  const parsed = new URL(text);
  const secrets = [...parsed.searchParams.keys()].filter((name) => SECRET_PARAMETER.test(name));
  if (parsed.username === '' && parsed.password === '' && secrets.length === 0) return text;
  parsed.username = '';
  parsed.password = '';
  // The parameter's name stays, its value goes: the reader sees that a secret was given there.
  for (const name of secrets) parsed.searchParams.set(name, '');
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
