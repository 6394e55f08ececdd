import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { createJsonBody, createMultipartFormBody, type CallSpec, type FormPart, type HttpMethod, type RequestBody } from '../api/index.js';
import { UsageError } from '../shared/errors.js';
import { parseJsonExact } from '../shared/lossless-json.js';
import { MEDIA } from '../wire/media.js';

/**
 * What `chatport api` sends, from its arguments: the method, the path with its query (from the path and
 * `-F key=value`), and a JSON (`--data`) or multipart (`--form`) body. Pure except for reading the files
 * and standard input the flags name.
 */
export interface ApiRequestFlags {
  data?: string;
  form?: string[];
  field?: string[];
}

const METHODS: readonly HttpMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

const CONTENT_TYPES: Record<string, string> = { '.json': 'application/json', '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.txt': 'text/plain', '.pdf': 'application/pdf' };

export function parseMethod(text: string): HttpMethod {
  const method = text.toUpperCase() as HttpMethod;
  if (!METHODS.includes(method)) throw new UsageError(`method must be one of ${METHODS.join(', ')}, not "${text}"`);
  return method;
}

/** Splits `/users?name=a` into the path and its query, and adds `-F key=value` pairs to the query. */
export function pathAndQuery(path: string, fields: readonly string[] = []): { path: string; query: Record<string, string[]> } {
  if (!path.startsWith('/')) throw new UsageError(`the path must start with "/" (e.g. /users), not "${path}"`);
  const url = new URL(path, 'http://placeholder');
  const query: Record<string, string[]> = {};
  const add = (k: string, v: string) => (query[k] ??= []).push(v);
  for (const [k, v] of url.searchParams) add(k, v);
  for (const field of fields) {
    const at = field.indexOf('=');
    if (at <= 0) throw new UsageError(`-F/--field takes key=value, not "${field}"`);
    add(field.slice(0, at), field.slice(at + 1));
  }
  return { path: url.pathname, query };
}

/** `--data`: JSON text, `@file`, or `-` (standard input); PATCH sends it as a merge patch (decisions.md "Wire"). */
async function jsonBody(data: string, method: HttpMethod, stdin: () => Promise<string>): Promise<RequestBody> {
  const text = data === '-' ? await stdin() : data.startsWith('@') ? await readFile(data.slice(1), 'utf8') : data;
  let value: unknown;
  try {
    value = parseJsonExact(text, 'bigint');
  } catch (error) {
    throw new UsageError(`--data${data.startsWith('@') ? ` ${data}` : ''}: not valid JSON: ${(error as Error).message}`);
  }
  return createJsonBody(value, method === 'PATCH' ? MEDIA.mergePatch : MEDIA.chat);
}

/** `--form key=value` and `--form key=@file` (a file part, its content type from the extension). */
async function formBody(form: readonly string[]): Promise<RequestBody> {
  const parts: FormPart[] = [];
  for (const entry of form) {
    const at = entry.indexOf('=');
    if (at <= 0) throw new UsageError(`--form takes key=value or key=@file, not "${entry}"`);
    const name = entry.slice(0, at);
    const value = entry.slice(at + 1);
    if (!value.startsWith('@')) {
      parts.push({ name, value });
      continue;
    }
    const path = value.slice(1);
    parts.push({ name, filename: basename(path), contentType: CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream', bytes: await readFile(path) });
  }
  return createMultipartFormBody(parts);
}

export async function buildApiCall(method: HttpMethod, rawPath: string, flags: ApiRequestFlags, stdin: () => Promise<string>): Promise<CallSpec> {
  if (flags.data !== undefined && flags.form !== undefined && flags.form.length > 0) throw new UsageError('give --data or --form, not both');
  const { path, query } = pathAndQuery(rawPath, flags.field);
  const body = flags.data !== undefined ? await jsonBody(flags.data, method, stdin) : flags.form?.length ? await formBody(flags.form) : undefined;
  // Only reads and idempotent writes are repeated blindly; a POST or a PATCH only after a 429.
  const retry = method === 'POST' || method === 'PATCH' ? 'unprocessed' : 'idempotent';
  return { operation: `${method} ${path}`, method, path, query, retry, ...(body ? { body } : {}) };
}
