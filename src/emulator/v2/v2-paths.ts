/**
 * Where the v2 surface lives: its root and its endpoints, each a method and a path template as
 * the official SDK calls them (`respond-io/typescript-sdk`, src/clients/contact.ts and
 * messaging.ts). An endpoint is the unit of v2's rate limits and counters.
 */
import type { ApiOperation } from '../../api/wire-types.js';
import type { HttpMethod } from '../api-paths.js';

/** Clients use `http://HOST:PORT/v2` as base URL, as the SDK's `https://api.respond.io/v2`. */
export const V2_ROOT = '/v2';

export interface V2Endpoint {
  /** Method and path template below the root, the key of its budget: `GET /contact/{identifier}`. */
  readonly name: string;
  readonly method: HttpMethod;
  /** The fastify route. */
  readonly url: string;
  /**
   * The v1 operation of the same kind: the name injected faults know it by (`faults.operations`,
   * `createCommitThenDrop` on the creates, `sendCommitThenDrop` on the send).
   */
  readonly faultOperation: ApiOperation;
}

function endpoint(method: HttpMethod, template: string, faultOperation: ApiOperation): V2Endpoint {
  return {
    name: `${method} ${template}`,
    method,
    url: `${V2_ROOT}${template.replace(/\{(\w+)\}/g, ':$1')}`,
    faultOperation,
  };
}

export const V2_ENDPOINTS = {
  getContact: endpoint('GET', '/contact/{identifier}', 'getContact'),
  createContact: endpoint('POST', '/contact/{identifier}', 'createContact'),
  updateContact: endpoint('PUT', '/contact/{identifier}', 'updateContact'),
  deleteContact: endpoint('DELETE', '/contact/{identifier}', 'updateContact'),
  createOrUpdateContact: endpoint('POST', '/contact/create_or_update/{identifier}', 'createContact'),
  listContacts: endpoint('POST', '/contact/list', 'searchContacts'),
  mergeContacts: endpoint('POST', '/contact/merge', 'updateContact'),
  addTags: endpoint('POST', '/contact/{identifier}/tag', 'addTags'),
  removeTags: endpoint('DELETE', '/contact/{identifier}/tag', 'removeTags'),
  sendMessage: endpoint('POST', '/contact/{identifier}/message', 'sendMessage'),
  listMessages: endpoint('GET', '/contact/{identifier}/message/list', 'getContact'),
  getMessage: endpoint('GET', '/contact/{identifier}/message/{messageId}', 'getContact'),
} as const satisfies Record<string, V2Endpoint>;

export const V2_ENDPOINT_LIST: readonly V2Endpoint[] = Object.values(V2_ENDPOINTS);
