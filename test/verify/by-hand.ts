/** Changes made to the platform as another client of it makes them (over HTTP, with its own token): the tamper tests' hand. */
import { afterAll, beforeAll } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/options.js';
import { startImportFixture, type ImportFixture } from '../import/support.js';
import { fetchToken } from '../sandbox/helpers.js';

export interface ByHand {
  /** A request; answers the parsed body, failing on any non-2xx. */
  call(method: string, path: string, body?: unknown, type?: string): Promise<Record<string, unknown>>;
  /** PATCH as a JSON merge patch. */
  mergePatch(path: string, body: unknown): Promise<Record<string, unknown>>;
}

export async function byHand(sandbox: SandboxHandle): Promise<ByHand> {
  const token = (await fetchToken(sandbox)).json.access_token as string;
  const call: ByHand['call'] = async (method, path, body, type = 'application/vnd.chat+json') => {
    const response = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': type }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
  };
  return { call, mergePatch: (path, body) => call('PATCH', path, body, 'application/json+merge-patch') };
}

/** A sandbox of the test file's own and a hand on it: made before the file's tests, closed after them. */
export function sandboxAndHand(): { f: ImportFixture; hand: ByHand } {
  const held = {} as { f: ImportFixture; hand: ByHand };
  beforeAll(async () => {
    held.f = await startImportFixture();
    held.hand = await byHand(held.f.sandbox);
  });
  afterAll(() => held.f.close());
  return held;
}
