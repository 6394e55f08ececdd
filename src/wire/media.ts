/** Media types and header names from management-api.md §1, §9 and decisions.md "Wire". */
export const MEDIA = {
  chat: 'application/vnd.chat+json',
  chatV1: 'application/vnd.chat.v1+json',
  hal: 'application/hal+json',
  vndHal: 'application/vnd.hal+json',
  json: 'application/json',
  mergePatch: 'application/json+merge-patch',
  form: 'application/x-www-form-urlencoded',
} as const;

/** What the client sends as Accept (decisions.md). */
export const ACCEPT_HEADER = 'application/vnd.chat+json, application/hal+json;q=0.9, application/json;q=0.8';

export const HEADER = {
  apiVersion: 'x-api-version',
  responseToken: 'x-response-token',
  retryAfter: 'retry-after',
} as const;

/** Page size rules (management-api.md §8, decisions.md). */
export const PAGE_SIZE = { default: 25, min: 1, max: 100 } as const;
