import { describe, expect, it } from 'vitest';
import { parseFaultSpec } from '../../src/sandbox/fault-spec.js';
import { FaultEngine, matchPath } from '../../src/sandbox/faults.js';

describe('parseFaultSpec (the --fault syntax)', () => {
  it.each([
    ['POST /imports/**=status:503@0.2', { method: 'POST', path: '/imports/**', probability: 0.2, fault: { kind: 'status', status: 503 } }],
    ['/jobs/*=status:429,retry-after=3', { path: '/jobs/*', fault: { kind: 'status', status: 429, retryAfter: { seconds: 3 } } }],
    ['**=status:503,retry-after-date=9', { fault: { kind: 'status', status: 503, retryAfter: { httpDateInSeconds: 9 } } }],
    ['**=rate:100/60s', { fault: { kind: 'rateLimit', budget: 100, windowMs: 60_000, retryAfterAs: 'seconds' } }],
    ['**=rate:5/250ms,http-date', { fault: { kind: 'rateLimit', budget: 5, windowMs: 250, retryAfterAs: 'http-date' } }],
    ['POST /imports/messages=drop:mid-body', { method: 'POST', path: '/imports/messages', fault: { kind: 'drop', when: 'mid-body' } }],
    ['GET **=delay:2s', { method: 'GET', fault: { kind: 'delay', ms: 2000 } }],
    ['**=redirect:307,http://127.0.0.1:9999', { fault: { kind: 'redirect', status: 307, toOrigin: 'http://127.0.0.1:9999' } }],
    ['POST /channels=status:500,times=2', { method: 'POST', path: '/channels', times: 2, fault: { kind: 'status', status: 500 } }],
  ])('%s', (spec, rule) => {
    expect(parseFaultSpec(spec)).toEqual(rule);
  });

  it.each(['nothing', '/x=status:200', '/x=status:503@2', '/x=drop:sometimes', '/x=rate:5', '/x=redirect:200', '/x=boom:1', 'x y=status:503'])(
    'refuses %s naming the spec',
    (spec) => {
      expect(() => parseFaultSpec(spec)).toThrow(new RegExp(`invalid --fault '${spec.replace(/[*+?.()[\]{}|\\^$]/g, '\\$&')}'`));
    },
  );
});

describe('fault matching', () => {
  it('matches * as one segment and ** as any rest', () => {
    expect(matchPath('/users/*', '/users/1')).toBe(true);
    expect(matchPath('/users/*', '/users')).toBe(false);
    expect(matchPath('/users/*', '/users/1/channels')).toBe(false);
    expect(matchPath('/imports/**', '/imports/channels/4/members')).toBe(true);
    expect(matchPath('/imports/**', '/imports')).toBe(true);
    expect(matchPath('**', '/anything/at/all')).toBe(true);
  });

  it('adds delays up and lets the first answering fault decide; never redirects under /_r', () => {
    const engine = new FaultEngine(
      [
        { fault: { kind: 'delay', ms: 10 } },
        { fault: { kind: 'delay', ms: 5 } },
        { fault: { kind: 'redirect', status: 307 } },
        { fault: { kind: 'status', status: 503 } },
      ],
      () => 0,
    );
    expect(engine.decide('GET', '/x', 'c', false)).toMatchObject({ delayMs: 15, decision: { kind: 'redirect', status: 307 } });
    expect(engine.decide('GET', '/x', 'c', true)).toMatchObject({ delayMs: 15, decision: { kind: 'answer' } });
  });

  it('keeps rate budgets per client', () => {
    const engine = new FaultEngine([{ fault: { kind: 'rateLimit', budget: 1, windowMs: 1000 } }], () => 0);
    expect(engine.decide('GET', '/x', 'a', false, 0).decision).toBeUndefined();
    expect(engine.decide('GET', '/x', 'b', false, 0).decision).toBeUndefined();
    expect(engine.decide('GET', '/x', 'a', false, 10).decision).toMatchObject({ kind: 'answer' });
    expect(engine.decide('GET', '/x', 'a', false, 1000).decision).toBeUndefined();
  });

  it('refuses invalid rules', () => {
    expect(() => new FaultEngine([{ fault: { kind: 'status', status: 200 } }], Math.random)).toThrow(/status/);
    expect(() => new FaultEngine([{ probability: 3, fault: { kind: 'delay', ms: 1 } }], Math.random)).toThrow(/probability/);
  });
});
