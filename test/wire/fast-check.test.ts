import { describe, expect, it } from 'vitest';
import { parseJsonExact } from '../../src/shared/lossless-json.js';
import { fastCheckOf, safeParseFast } from '../../src/wire/fast-check.js';
import { Message, cursorPage } from '../../src/wire/resources.js';
import { rng } from '../helpers/rng.js';

/** A message as the platform sends it, then one change picked at random (or none). */
function generatedMessage(random: () => number): Record<string, unknown> {
  const pick = <T,>(list: T[]): T => list[Math.floor(random() * list.length)]!;
  const m: Record<string, unknown> = {
    id: pick([7, 2 ** 53 + 2, 9_223_372_036_854_775_807n]),
    type: 'TEXT',
    channelId: pick([3, 2 ** 60 + 1]),
    body: 'hi',
    repliesCount: 0,
    properties: { source: { ts: '1712.5' }, n: 1 },
    createdTime: '2026-11-26T10:00:00Z',
    _links: { self: { href: '/messages/7' }, replies: { href: '/threads/9', templated: false } },
  };
  if (random() < 0.3) m.user = { id: 4, name: 'ann', isGuest: false, presence: { status: 'ONLINE', online: true }, properties: {}, _links: {} };
  if (random() < 0.2) m.extraField = [1, 2];
  const changes: Array<() => void> = [
    () => {},
    () => (m.id = 1.5),
    () => (m.id = 2 ** 60),
    () => (m.id = 9_223_372_036_854_775_808n),
    () => (m.id = '7'),
    () => delete m.id,
    () => delete m.type,
    () => (m.type = null),
    () => (m.body = 5),
    () => (m.body = null),
    () => (m.nestedLevel = 1.5),
    () => (m.nestedLevel = 2),
    () => (m.repliesCount = -1),
    () => (m.repliesCount = '1'),
    () => (m.channelId = -3),
    () => (m.created_time = '2026-11-26T10:00:00Z'),
    () => (m.group_tag = 'g'),
    () => (m.properties = [1]),
    () => (m.properties = null),
    () => (m.properties = JSON.parse('{"__proto__":{"x":1},"k":2}')),
    () => (m._links = { self: { href: 5 } }),
    () => (m._links = { self: { href: '/m', templated: 'no' } }),
    () => (m._links = []),
    () => (m.user = { id: 4 }),
    () => (m.user = { id: 4, name: 'ann', display_name: 'Ann' }),
    () => (m.user = { id: 4, name: 'ann', presence: { online: 'yes' } }),
    () => (m.user = { id: 4, name: 'ann', presence: { is_online: true } }),
    () => (m.user = null),
    () => (m.lastEditedTime = 17),
  ];
  pick(changes)();
  return m;
}

describe('fast checks of responses agree with their zod schemas', () => {
  it('a message: a fast yes only where zod accepts it and gives back the same value; most plain ones get it', () => {
    const random = rng(12);
    const isPlain = fastCheckOf(Message)!;
    let yes = 0;
    for (let i = 0; i < 5_000; i++) {
      const value = generatedMessage(random);
      const byZod = Message.safeParse(structuredClone(value));
      if (isPlain(value)) {
        yes++;
        expect(byZod.success, JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))).toBe(true);
        expect(value).toEqual(byZod.data);
      }
      const fast = safeParseFast(Message, value);
      expect(fast.success).toBe(byZod.success);
      if (fast.success) expect(fast.data).toEqual(byZod.data);
    }
    expect(yes).toBeGreaterThan(5_000 / 29);
  });

  it('a page of messages: the same, over pages read from JSON text as the transport reads them', () => {
    const random = rng(5);
    const Page = cursorPage('messages', Message);
    let yes = 0;
    for (let i = 0; i < 1_000; i++) {
      const items = Array.from({ length: 1 + Math.floor(random() * 3) }, () => generatedMessage(random));
      const page: Record<string, unknown> = { _embedded: { messages: items }, _links: { next: { href: '/n' } }, page: { size: 3 } };
      if (random() < 0.1) page.page = { size: 2.5 };
      if (random() < 0.1) page._embedded = { other: [] };
      if (random() < 0.05) delete page._embedded;
      const text = JSON.stringify(page, (_, v: unknown) => (typeof v === 'bigint' ? `@@${v}@@` : v)).replace(/"@@(-?\d+)@@"/g, '$1');
      const value = parseJsonExact(text, 'bigint');
      const byZod = Page.safeParse(parseJsonExact(text, 'bigint'));
      if (fastCheckOf(Page)!(value)) {
        yes++;
        expect(byZod.success, text).toBe(true);
        expect(value).toEqual(byZod.data);
      }
      expect(safeParseFast(Page, value).success).toBe(byZod.success);
    }
    expect(yes).toBeGreaterThan(10);
  });
});
