/** Where the emulated API lives: the API root and the paths of spec section 4, with their methods. */

/** The API root: clients use `http://HOST:PORT/api` as base URL and append `/v1/...`. */
export const API_ROOT = '/api';
/** The admin API, outside the API root so no channel route can reach it. */
export const ADMIN_ROOT = '/__admin';

export const SEARCH_PATH = `${API_ROOT}/v1/contact/by_custom_field`;
export const CONTACT_PATH = `${API_ROOT}/v1/contact/:contactId`;
export const TAGS_PATH = `${API_ROOT}/v1/contact/:contactId/tags`;
export const CREATE_PATH = `${API_ROOT}/v1/contact`;
export const SEND_PATH = `${API_ROOT}/v1/message/sendContent/:contactId`;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
export const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];

/** Methods each known path accepts; any other method on it is answered 405. */
export const KNOWN_PATHS: ReadonlyArray<{ path: string; methods: readonly HttpMethod[] }> = [
  { path: SEARCH_PATH, methods: ['GET'] },
  { path: CONTACT_PATH, methods: ['GET', 'PUT'] },
  { path: TAGS_PATH, methods: ['POST', 'DELETE'] },
  { path: CREATE_PATH, methods: ['POST'] },
  { path: SEND_PATH, methods: ['POST'] },
];
