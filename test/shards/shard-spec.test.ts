import { describe, expect, it } from 'vitest';
import { shardOf } from '../../src/pipeline/shards/shard-spec.js';
import { UsageError } from '../../src/shared/errors.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';

/**
 * Where a process learns its shard. A flag and a scheduler's variables that disagree must stop the run (64):
 * if one silently won, every pod of an Indexed Job given one fixed `--shard` would import the same shard, or
 * an array job of 3 told `--shards 4` would never run shard 3, and every process would still end well.
 */
const usageError = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect(exitCodeFor(error)).toBe(ExitCode.USAGE);
    return (error as Error).message;
  }
  throw new Error('expected a usage error');
};

describe('shardOf', () => {
  it('takes the flag, or the scheduler index with the count, when they agree', () => {
    expect(shardOf({ shard: '2/4' }, { JOB_COMPLETION_INDEX: '2' })).toEqual({ index: 2, count: 4 });
    expect(shardOf({ shards: '4' }, { JOB_COMPLETION_INDEX: '3' })).toEqual({ index: 3, count: 4 });
    expect(shardOf({ shards: '3' }, { AWS_BATCH_JOB_ARRAY_INDEX: '2', AWS_BATCH_JOB_ARRAY_SIZE: '3' })).toEqual({ index: 2, count: 3 });
    expect(shardOf({}, { AWS_BATCH_JOB_ARRAY_INDEX: '1', AWS_BATCH_JOB_ARRAY_SIZE: '3' })).toEqual({ index: 1, count: 3 });
    expect(shardOf({ shard: '1/3' }, {})).toEqual({ index: 1, count: 3 });
  });

  it("refuses a --shard other than the scheduler's index or size", () => {
    expect(usageError(() => shardOf({ shard: '0/4' }, { JOB_COMPLETION_INDEX: '2' }))).toMatch(/--shard 0\/4 disagrees with JOB_COMPLETION_INDEX=2/);
    expect(usageError(() => shardOf({ shard: '1/4' }, { AWS_BATCH_JOB_ARRAY_INDEX: '1', AWS_BATCH_JOB_ARRAY_SIZE: '3' }))).toMatch(/AWS_BATCH_JOB_ARRAY_SIZE=3/);
  });

  it('refuses a --shards that is not the array job size', () => {
    expect(usageError(() => shardOf({ shards: '4' }, { AWS_BATCH_JOB_ARRAY_INDEX: '0', AWS_BATCH_JOB_ARRAY_SIZE: '3' }))).toMatch(/--shards 4 disagrees with AWS_BATCH_JOB_ARRAY_INDEX=0, AWS_BATCH_JOB_ARRAY_SIZE=3/);
  });
});
