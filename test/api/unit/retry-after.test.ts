import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../../src/api/retry/retry-after.js';

const now = Date.parse('2026-11-22T12:00:00.000Z');

describe('parseRetryAfter', () => {
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter(' 120 ', now)).toBe(120_000);
  });

  it('reads an HTTP date relative to now', () => {
    expect(parseRetryAfter('Sun, 22 Nov 2026 12:00:05 GMT', now)).toBe(5000);
    // RFC 850 form, still allowed by RFC 9110 for recipients.
    expect(parseRetryAfter('Sunday, 22-Nov-26 12:00:03 GMT', now)).toBe(3000);
  });

  it('never returns a negative wait for a date in the past', () => {
    expect(parseRetryAfter('Sun, 22 Nov 2026 11:59:00 GMT', now)).toBe(0);
  });

  it('takes the first of repeated headers', () => {
    expect(parseRetryAfter(['2', '9'], now)).toBe(2000);
  });

  it('gives undefined for absent or unreadable values, so the caller backs off on its own', () => {
    for (const value of [undefined, '', '-1', '1.5', '+3', 'soon', 'Sun, 99 Foo 2026'])
      expect(parseRetryAfter(value, now), String(value)).toBeUndefined();
  });
});
