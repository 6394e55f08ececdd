import { PAGE_SIZE } from '../../wire/media.js';
import { UsageError } from '../../shared/errors.js';
import { isInt64, type Int64 } from '../../shared/int64.js';

/** Options every list takes. */
export interface ListOptions {
  /** Items per page, 1..100; default 100 (bulk work wants few round trips). */
  pageSize?: number;
  signal?: AbortSignal;
}

export function checkPageSize(size: number | undefined): number {
  const value = size ?? PAGE_SIZE.max;
  if (!Number.isInteger(value) || value < PAGE_SIZE.min || value > PAGE_SIZE.max)
    throw new UsageError(`page size must be an integer from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}, got ${value}`, { pageSize: value });
  return value;
}

/** int64 path ids: positive, a number or (beyond 2^53) a bigint (src/shared/int64.ts). */
export function checkId(what: string, id: Int64): Int64 {
  if (!isInt64(id) || id <= 0) throw new UsageError(`${what} id must be a positive integer, got ${id}`, { id });
  return id;
}

export function withSignal(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal ? { signal } : {};
}
