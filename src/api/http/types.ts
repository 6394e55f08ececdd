import type { Readable } from 'node:stream';
import type { RequestBody } from './body.js';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type ResponseHeaders = Record<string, string | string[] | undefined>;

export interface HttpRequest {
  url: URL;
  method: HttpMethod;
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: RequestBody;
  signal?: AbortSignal;
}

/** A response whose body has not been read yet: read it (`text`), stream it (`stream`) or `dump` it. */
export interface HttpResponse {
  status: number;
  headers: ResponseHeaders;
  /** The address that answered, after redirects. */
  url: URL;
  body: ResponseBody;
}

export interface ResponseBody {
  stream: Readable;
  text(): Promise<string>;
  /** Discard the rest so the connection can be reused. */
  dump(): Promise<void>;
}

export type SendOnce = (request: HttpRequest) => Promise<HttpResponse>;

export function headerValue(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
