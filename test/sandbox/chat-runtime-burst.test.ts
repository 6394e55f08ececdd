import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startTestSandbox, type Body, type TestSandbox } from './helpers.js';

let t: TestSandbox;
beforeAll(async () => {
  t = await startTestSandbox({ seed: 'demo', functionLimits: { timeoutMs: 60_000, memoryMb: 32, concurrent: 2 } });
});
afterAll(() => t.close());

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 10));
}

it('a burst of sent messages runs at most `concurrent` handlers at once; the others wait RUNNING, then run', async () => {
  const fn = await t.call('/runtimes/nodejs/functions', { method: 'POST', body: { type: 'user.sent.message', name: 'gated', initializeAsynchronously: false } });
  await t.call(`/functions/${fn.json.id}/versions`, { method: 'POST', body: { handlerScript: 'async function handleEvent(e, context) { return (await context.getUserApi().getUserExists("gate")).data; }' } });
  // Each running handler holds its context call here (the sandbox runs in this process) until the test lets it go.
  const realFetch = globalThis.fetch;
  const held: (() => void)[] = [];
  const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    if (String(input instanceof Request ? input.url : input).includes('name=gate')) await new Promise<void>((release) => held.push(release));
    return realFetch(input, init);
  });
  try {
    for (let i = 0; i < 6; i++) await t.call('/channels/1/messages', { method: 'POST', body: { type: 'TEXT', body: `burst ${i}`, user: { username: 'alice' } } });
    for (let released = 0; released < 6; released++) {
      const expected = Math.min(2, 6 - released);
      await until(() => held.length - released >= expected);
      expect(held.length - released).toBe(expected);
      held[released]!();
    }
  } finally {
    spy.mockRestore();
    for (const release of held) release();
  }
  let statuses: string[] = [];
  while (statuses.length < 6 || statuses.includes('RUNNING')) statuses = ((await t.call(`/functions/${fn.json.id}/invocations`)).json._embedded.invocations as Body[]).map((i) => i.status as string);
  expect(statuses).toEqual(Array(6).fill('SUCCEEDED'));
});
