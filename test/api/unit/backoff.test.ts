import { describe, expect, it } from 'vitest';
import { computeBackoffMs } from '../../../src/api/retry/backoff.js';
import { RETRY_POLICIES, resolveRetryPolicy } from '../../../src/api/retry/policies.js';

const policy = { baseDelayMs: 100, maxDelayMs: 1000 };

describe('computeBackoffMs (full jitter)', () => {
  it('doubles the ceiling each retry and caps it', () => {
    const top = () => 0.999999;
    expect(computeBackoffMs(1, policy, top)).toBe(99);
    expect(computeBackoffMs(2, policy, top)).toBe(199);
    expect(computeBackoffMs(3, policy, top)).toBe(399);
    expect(computeBackoffMs(5, policy, top)).toBe(999);
    expect(computeBackoffMs(30, policy, top)).toBe(999);
  });

  it('picks uniformly below the ceiling', () => {
    expect(computeBackoffMs(3, policy, () => 0)).toBe(0);
    expect(computeBackoffMs(3, policy, () => 0.5)).toBe(200);
  });
});

describe('retry policies', () => {
  it('default tries about five times; rapid waits milliseconds', () => {
    expect(RETRY_POLICIES.default.maxAttempts).toBe(5);
    expect(RETRY_POLICIES.rapid.maxDelayMs).toBeLessThan(100);
    expect(resolveRetryPolicy(undefined)).toBe(RETRY_POLICIES.default);
    expect(resolveRetryPolicy('rapid')).toBe(RETRY_POLICIES.rapid);
    expect(resolveRetryPolicy({ maxAttempts: 2 })).toMatchObject({ name: 'custom', maxAttempts: 2, baseDelayMs: 500 });
  });
});
