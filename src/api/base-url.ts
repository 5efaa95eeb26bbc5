/**
 * What a connection's `baseUrl` must be, checked once: by the config (with the YAML path) and by
 * the client (for a caller that builds one by hand). The API root, http(s), with no credentials
 * (the token is the only one) and no query or fragment (request paths `/v1/...` are appended).
 */
export const BASE_URL_FORM = 'the API root as an http(s) URL, e.g. https://app.example.com/api';

/** The problems of `text` as a base URL, each worded to follow the value shown; none when it is good. */
export function baseUrlProblems(text: string): string[] {
  if (!URL.canParse(text)) return [`is not a URL; write ${BASE_URL_FORM}`];
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return [`uses ${url.protocol.replace(/:$/, '')}; write ${BASE_URL_FORM}`];
  const problems: string[] = [];
  if (url.username !== '' || url.password !== '') problems.push('holds credentials; remove them from the URL, the token authenticates');
  if (url.search !== '' || url.hash !== '') problems.push('has a query or fragment; write the API root only, e.g. https://app.example.com/api');
  return problems;
}
