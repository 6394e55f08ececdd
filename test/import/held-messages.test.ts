import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHeldMessages, type HeldCopy } from '../../src/pipeline/import/held-messages.js';

const message = (i: number): HeldCopy => ({ id: 1000 + i, fields: { body: `body ${i}`, properties: { n: i } } });

async function* yielded(entries: ReadonlyArray<[string, HeldCopy]>): AsyncGenerator<[string, HeldCopy]> {
  yield* entries;
}

/** 500 keys in two channels, "c1\u0000k7" held twice. */
const ENTRIES: Array<[string, HeldCopy]> = [...Array.from({ length: 500 }, (_, i): [string, HeldCopy] => [`c${i % 2}\u0000k${i}`, message(i)]), ['c1\u0000k7', message(9999)]];

describe('held messages snapshot', () => {
  it('finds every key held once through spilled keys whose fingerprints all collide, never one held twice or not held', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatport-held-'));
    // 64 keys in memory (spills), and every key shares one of 3 fingerprints: each look-up reads the line back.
    const fingerprint = (key: string): [number, number] => [key.length % 3, 7];
    const held = await openHeldMessages(dir, () => yielded(ENTRIES), { memoryKeys: 64, fingerprint });
    expect(held.find('c0\u0000k0')).toEqual(message(0));
    expect(held.find('c1\u0000k499')).toEqual(message(499));
    expect(held.find('c1\u0000k7')).toBeUndefined();
    expect(held.find('c0\u0000k7')).toBeUndefined();
    expect(held.find('c0\u0000k1')).toBeUndefined();
    for (let i = 0; i < 500; i++) if (i !== 7) expect(held.find(`c${i % 2}\u0000k${i}`)).toEqual(message(i));
    held.close();
    expect(await readdir(dir)).toEqual(['messages']);
  });

  it('finds a key by its part without the channel, the first line holding it, through colliding fingerprints; tells a key held twice from one not held', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatport-held-'));
    const fingerprint = (key: string): [number, number] => [key.length % 3, 7];
    const otherKeyOf = (key: string) => key.slice(key.indexOf('\u0000') + 1);
    // k3 is held in c1, then in c0 too.
    const entries: Array<[string, HeldCopy]> = [...ENTRIES, ['c0\u0000k3', message(3333)]];
    const held = await openHeldMessages(dir, () => yielded(entries), { memoryKeys: 64, fingerprint, otherKeyOf });
    for (let i = 0; i < 500; i++) if (i !== 3) expect(held.findByOther(`k${i}`)).toEqual({ key: `c${i % 2}\u0000k${i}`, copy: message(i) });
    expect(held.findByOther('k3')).toEqual({ key: 'c1\u0000k3', copy: message(3) });
    expect(held.find('c0\u0000k3')).toEqual(message(3333));
    expect(held.findByOther('k500')).toBeUndefined();
    expect([held.holds('c1\u0000k7'), held.find('c1\u0000k7')]).toEqual([true, undefined]);
    expect([held.holds('c0\u0000k7'), held.holds('c0\u0000k1'), held.holds('c0\u0000k0')]).toEqual([false, false, true]);
    held.close();
    expect(await readdir(dir)).toEqual(['messages']);
  });

  it('finds every line of a part held more than once (everyOtherLine), in order, through colliding fingerprints', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatport-held-'));
    const fingerprint = (key: string): [number, number] => [key.length % 3, 7];
    // The part is the key's number by tens: k30 to k39 share "3" (10 lines, in two channels).
    const otherKeyOf = (key: string) => key.slice(key.indexOf('\u0000') + 2, -1) || '-';
    const held = await openHeldMessages(dir, () => yielded(ENTRIES), { memoryKeys: 64, fingerprint, otherKeyOf, everyOtherLine: true });
    expect(held.findAllByOther('3').map((m) => m.key)).toEqual(Array.from({ length: 10 }, (_, i) => `c${i % 2}\u0000k3${i}`));
    expect(held.findAllByOther('49')).toHaveLength(10);
    expect(held.findAllByOther('50')).toEqual([]);
    held.close();
  });

  it('reuses a complete snapshot without reading again, and reads again when the first read failed part way', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatport-held-'));
    async function* failing(): AsyncGenerator<[string, HeldCopy]> {
      yield* ENTRIES.slice(0, 100);
      throw new Error('connection lost');
    }
    await expect(openHeldMessages(dir, failing, { memoryKeys: 16 })).rejects.toThrow('connection lost');
    expect(await readdir(dir)).toEqual(['messages.partial']);
    let reads = 0;
    const counted = () => {
      reads++;
      return yielded(ENTRIES);
    };
    (await openHeldMessages(dir, counted, { memoryKeys: 16 })).close();
    const resumed = await openHeldMessages(dir, counted, { memoryKeys: 16 });
    expect(reads).toBe(1);
    expect(resumed.find('c1\u0000k301')).toEqual(message(301));
    expect(resumed.find('c1\u0000k7')).toBeUndefined();
    resumed.close();
  });
});
