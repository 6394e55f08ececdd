import { describe, expect, it } from 'vitest';
import { SurrogateEscapeScan } from '../../src/shared/json-checks/lone-surrogates.js';

/** What SurrogateEscapeScan notes of JSON bytes given in these pieces; the bytes pass unchanged. */
async function scan(pieces: string[]): Promise<{ seen: boolean; out: string }> {
  const s = new SurrogateEscapeScan();
  const out: Buffer[] = [];
  s.on('data', (b: Buffer) => out.push(b));
  for (const p of pieces) s.write(Buffer.from(p));
  await new Promise<void>((resolve) => s.end(resolve));
  return { seen: s.seen, out: Buffer.concat(out).toString() };
}

describe('SurrogateEscapeScan', () => {
  it('notes a \\uD800-\\uDFFF escape, in either case, also when split between pieces', async () => {
    expect(await scan(['["a\\ud800"]'])).toEqual({ seen: true, out: '["a\\ud800"]' });
    expect((await scan(['["a\\uDF', 'FF"]'])).seen).toBe(true);
    expect((await scan(['["a\\', 'u', 'd', 'c00"]'])).seen).toBe(true);
  });

  it('does not note other escapes', async () => {
    expect((await scan(['["\\ud7ff \\u00e9 \\n', ' \\u0064800"]'])).seen).toBe(false);
  });
});
