import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateSlackExport } from '../../fixtures/slack/generator/index.js';
import { SlackMessage, fastSlackMessage, parseSlackMessage } from '../../src/transform/slack/records.js';
import { rng } from '../helpers/rng.js';
import { useTempDir } from './helpers/temp.js';

/** Every message of every day file (YYYY-MM-DD.json) under `dir`. */
function dayMessages(dir: string): unknown[] {
  const out: unknown[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...dayMessages(path));
    else if (/^\d{4}-\d{2}-\d{2}\.json$/.test(name)) {
      const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
      if (Array.isArray(parsed)) out.push(...(parsed as unknown[]));
    }
  }
  return out;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The same members in another order. */
function shuffled(value: Json, random: () => number): Json {
  const keys = Object.keys(value);
  for (let i = keys.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [keys[i], keys[j]] = [keys[j]!, keys[i]!];
  }
  return Object.fromEntries(keys.map((k) => [k, value[k]]));
}

/** A message with one change picked at random (or none): a null, a wrong type, a key order, a `__proto__` member. */
function changed(message: unknown, random: () => number): unknown {
  if (!isObject(message)) return message;
  const m = structuredClone(message);
  const pick = <T,>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const typed = ['type', 'subtype', 'ts', 'user', 'bot_id', 'username', 'text', 'thread_ts', 'parent_user_id', 'reply_count', 'edited', 'reactions', 'files', 'attachments', 'bot_profile', 'user_profile', 'team'];
  const changes: Array<() => unknown> = [
    () => m,
    () => m,
    () => shuffled(m, random),
    () => ({ zz_first: 1, ...m }),
    () => ({ ...m, [pick(typed)]: null }),
    () => ({ ...m, [pick(typed)]: 5 }),
    () => ({ ...m, [pick(typed)]: 'text' }),
    () => ({ ...m, [pick(typed)]: [] }),
    () => ({ ...m, [pick(typed)]: {} }),
    () => ({ ...m, [pick(typed)]: undefined }),
    () => ({ ...m, ts: pick(['1700000000', '1700000000.0001234567', '17e8', '', ' 1.2', '1700000000.000100.5']) }),
    () => ({ ...m, thread_ts: pick(['1700000000.000100', 'x', 1700000000]) }),
    () => ({ ...m, reply_count: pick([Infinity, -1, 1.5, Number.NaN, '2']) }),
    () => ({ ...m, edited: pick([{ user: 'U1', ts: '1.2', extra: [1] }, { user: null }, { ts: 3 }, []]) }),
    () => ({ ...m, reactions: pick([[{ name: 'x', users: ['U1'], count: 1 }], [{ users: ['U1'] }], [{ name: 'x', users: [1] }], [{ name: 'x', count: null }], [null], { name: 'x' }]) }),
    () => ({
      ...m,
      files: pick([
        [{ zz: 1, mode: 'hosted', id: 'F1', name: null, title: null, permalink: 'https://x/p' }],
        [{ id: 'F1', size: '3' }],
        [{ id: 'F1', mimetype: null }],
        [shuffled({ id: 'F1', name: 'a', title: 't', mimetype: 'text/plain', size: 3, url_private: 'u', url_private_download: 'd', permalink: 'p', mode: 'hosted', thumb_64: 't' }, random)],
        ['F1'],
      ]),
    }),
    () => ({ ...m, attachments: pick([[{ text: 't', fallback: 'f', color: 'red' }], [{ fallback: null }], [{ title: 5 }], 'a']) }),
    () => ({ ...m, bot_profile: pick([{ app_id: 'A1', icons: {}, id: 'B1' }, { name: null }, [1]]) }),
    () => ({ ...m, user_profile: pick([{ real_name: 'R', image_72: 'i', name: 'n' }, { display_name: 7 }]) }),
    () => {
      delete m.ts;
      return m;
    },
    () => JSON.parse(`{"__proto__":{"type":"x","text":"proto"},${JSON.stringify(m).slice(1)}`) as unknown,
    () => ({ ...m, edited: JSON.parse('{"__proto__":{"user":"U9"},"ts":"1.2"}') as unknown }),
    () => pick([null, 'message', 5, [m]]),
  ];
  return pick(changes)();
}

describe("a Slack message's fast parse agrees with the zod schema", () => {
  let messages: unknown[];
  beforeAll(async () => {
    const dir = await useTempDir();
    await generateSlackExport({ out: join(dir, 'export'), seed: 7, messages: 3000 });
    messages = [...dayMessages(join(dir, 'export')), ...dayMessages('fixtures/slack/sample')];
  });

  it('a fast yes only where zod accepts, giving the same value with its keys in the same order; most messages get one', () => {
    const random = rng(23);
    let yes = 0;
    let tried = 0;
    for (let round = 0; round < 4; round++)
      for (const message of messages) {
        const value = round === 0 ? message : changed(message, random);
        const fast = fastSlackMessage(value);
        tried++;
        if (fast === undefined) continue;
        yes++;
        const byZod = SlackMessage.safeParse(value);
        expect(byZod.success, JSON.stringify(value)).toBe(true);
        // toStrictEqual ignores key order, the serialized text does not: `extra` keeps the record's order.
        expect(JSON.stringify(fast)).toBe(JSON.stringify(byZod.data));
        expect(fast).toStrictEqual(byZod.data);
        expect(Object.getPrototypeOf(fast)).toBe(Object.getPrototypeOf(byZod.data));
        expect(parseSlackMessage(value)).toStrictEqual({ ok: true, value: fast });
      }
    expect(messages.length).toBeGreaterThan(3000);
    expect(yes).toBeGreaterThan(tried / 2);
  });

  it('whatever the fast parse refuses, parseSlackMessage answers as the zod schema does (nulls taken out, or the first issue)', () => {
    const random = rng(5);
    for (const message of messages) {
      const value = changed(message, random);
      if (fastSlackMessage(value) !== undefined) continue;
      const byZod = SlackMessage.safeParse(value);
      const parsed = parseSlackMessage(value);
      if (byZod.success) expect(parsed).toStrictEqual({ ok: true, value: byZod.data });
      else if (parsed.ok) expect(JSON.stringify(value)).toContain('null');
      else expect(parsed.problem).toStrictEqual({ field: byZod.error.issues[0]!.path.join('.') || '(record)', reason: byZod.error.issues[0]!.message });
    }
  });
});
