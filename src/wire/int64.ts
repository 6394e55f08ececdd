import { z } from 'zod';
import { INT64_MAX, INT64_MIN, type Int64 } from '../shared/int64.js';

/**
 * An int64 on the wire, as the lossless JSON reader gives it (src/shared/lossless-json.ts): a safe integer
 * number, or a bigint beyond 2^53 (see src/shared/int64.ts). Plain JSON.parse output above 2^53 is refused,
 * since its digits are already lost.
 */
export const int64: z.ZodType<Int64> = z.union([z.number().int(), z.bigint().min(INT64_MIN).max(INT64_MAX)]);

/** An id the platform gives out: a positive int64. */
export const positiveInt64: z.ZodType<Int64> = z.union([z.number().int().positive(), z.bigint().positive().max(INT64_MAX)]);
