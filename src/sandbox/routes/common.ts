import { isPlainObject } from '../../shared/plain-object.js';
import type { z } from 'zod';
import type { SandboxApp } from '../app.js';
import { clientError, notFound } from '../errors.js';
import { readJson, type Ctx } from '../http.js';
import type { UserRec } from '../store.js';
import { parseInt64, type Int64 } from '../../shared/int64.js';
import { MEDIA } from '../../wire/media.js';
import { parseJsonExact, sameJsonValue } from '../../shared/lossless-json.js';

/**
 * A path id: an int64 (§4), else 400; returned as the store's id (see wire-ids.ts). An int64 this sandbox
 * never gave out is 0, which no record has (so: 404).
 */
export function pathId(ctx: Ctx, name = 'id'): number {
  const raw = ctx.params[name] ?? '';
  const wire = parseInt64(raw);
  if (wire === undefined) throw clientError(`path parameter '${name}' must be an int64, got '${raw}'`);
  return ctx.ids.toStore(wire) ?? 0;
}

/** Reads a JSON body and checks it against `schema`; the 400 names the first bad field. */
export async function readBody<T extends z.ZodType>(ctx: Ctx, schema: T): Promise<z.infer<T>> {
  return parseBody(await readJson(ctx), schema);
}

/**
 * Reads the merge patch of a PATCH (channel, message, user): a field the patch cannot change (an id, a
 * type) or does not know is refused (400, naming it and the fields it can change), since answering 200
 * while dropping it would tell the caller a change was made that was not.
 */
export async function readMergePatch<T extends z.ZodObject>(ctx: Ctx, schema: T, resource: string): Promise<z.infer<T>> {
  // A PATCH body's meaning is its media type (a merge patch, not a JSON Patch or a full resource), and
  // decisions.md names the one the platform takes: a client labelling it otherwise must fail here too.
  const type = (ctx.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== MEDIA.mergePatch) throw clientError(`a PATCH body must be ${MEDIA.mergePatch} (a JSON merge patch), got content-type '${type || 'none'}'`);
  const body = await readJson(ctx);
  const fields = Object.keys(schema.shape);
  const other = typeof body === 'object' && body !== null && !Array.isArray(body) ? Object.keys(body).find((k) => !fields.includes(k)) : undefined;
  if (other !== undefined) throw clientError(`field '${other}': a merge patch of a ${resource} can change only ${fields.join(', ')}`);
  return parseBody(body, schema);
}

function parseBody<T extends z.ZodType>(body: unknown, schema: T): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw clientError(`field '${issue.path.join('.') || '(body)'}': ${issue.message}`);
  }
  return parsed.data;
}

/** A user reference: `{username}` or `{id}` (§2). Unknown → 404. */
export function resolveUserRef(app: SandboxApp, ref: { username?: string; id?: Int64 }): UserRec {
  const user =
    ref.id !== undefined ? app.store.users.get(app.ids.toStore(ref.id) ?? 0) : ref.username !== undefined ? app.store.userByName(ref.username) : undefined;
  if (!user) throw notFound();
  return user;
}

/** `properties={"k":"v"}` filter (decisions.md): matches when every key is present with an equal value. */
export function propertiesFilter(ctx: Ctx): ((props: Record<string, unknown> | undefined) => boolean) | undefined {
  const raw = ctx.query.get('properties');
  if (raw === null || raw === '') return undefined;
  let wanted: unknown;
  try {
    // Read as stored properties are (integers beyond 2^53 exact), so such a value can match at all.
    wanted = parseJsonExact(raw, 'bigint');
  } catch {
    throw clientError(`'properties' must be a JSON object, got '${raw}'`);
  }
  if (wanted === null || typeof wanted !== 'object' || Array.isArray(wanted)) throw clientError(`'properties' must be a JSON object, got '${raw}'`);
  const entries = Object.entries(wanted as Record<string, unknown>);
  // Equal as JSON values: an object's key order does not matter, and a stored bigint is compared, not stringified.
  return (props) => entries.every(([k, v]) => props !== undefined && Object.hasOwn(props, k) && sameJsonValue(props[k], v));
}

export function booleanParam(ctx: Ctx, name: string): boolean | undefined {
  const raw = ctx.query.get(name);
  if (raw === null || raw === '') return undefined;
  if (raw !== 'true' && raw !== 'false') throw clientError(`'${name}' must be true or false, got '${raw}'`);
  return raw === 'true';
}

export function dateParam(ctx: Ctx, name: string): number | undefined {
  const raw = ctx.query.get(name);
  if (raw === null || raw === '') return undefined;
  // Wire rule 4: every timestamp is UTC. Date.parse reads a date-time without an offset as the host's local
  // time, which would move the range by the host's zone; such a value is read as UTC.
  const zoned = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(raw) ? raw : `${raw}Z`;
  const ms = Date.parse(zoned);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(raw) || Number.isNaN(ms)) throw clientError(`'${name}' must be an ISO 8601 date-time, got '${raw}'`);
  return ms;
}

/** JSON merge patch (RFC 7386) of a properties object: null removes a key. */
export function mergeProperties(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  return mergePatch(current, patch) as Record<string, unknown>;
}


/** RFC 7386 §2: an object patch merges into the target, or into `{}` when the target is no object, so a null at any depth removes and is never stored. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const out: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** Sort keys common to resources with id, name and createdTime. */
export const BASIC_SORT = {
  id: (r: { id: number }) => r.id,
  name: (r: { name?: string }) => r.name,
  createdTime: (r: { createdTime?: number }) => r.createdTime,
} as const;
