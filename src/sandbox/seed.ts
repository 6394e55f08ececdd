import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ConfigError, InputMissingError } from '../shared/errors.js';
import { directKey, type Store } from './store.js';

/**
 * Seed fixtures (fixtures/sandbox/<name>.json, or a path): users, channels and messages put into an
 * empty sandbox at start. Unlike import files, a seed DIRECT channel may carry a `name`, so that seed
 * messages can name the channel they belong to.
 */
const SeedFile = z.strictObject({
  settings: z.strictObject({ guestUsers: z.enum(['DISABLED', 'ENABLED']), userCreatedChannels: z.enum(['DISABLED', 'ENABLED']) }).optional(),
  users: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        displayName: z.string().min(1),
        isGuest: z.boolean().default(false),
        type: z.enum(['PERSON', 'BOT']).default('PERSON'),
        properties: z.record(z.string(), z.unknown()).default({}),
      }),
    )
    .default([]),
  channels: z
    .array(
      z.strictObject({
        type: z.enum(['DIRECT', 'PUBLIC', 'PRIVATE']),
        name: z.string().min(1),
        displayName: z.string().min(1).optional(),
        creator: z.string().min(1).optional(),
        members: z.array(z.string().min(1)).default([]),
        properties: z.record(z.string(), z.unknown()).default({}),
      }),
    )
    .default([]),
  messages: z
    .array(
      z.strictObject({
        channel: z.string().min(1),
        type: z.enum(['TEXT', 'SYSTEM_TEXT']).default('TEXT'),
        user: z.string().min(1).optional(),
        body: z.string().min(1),
        groupTag: z.string().min(1).optional(),
        properties: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .default([]),
});

/** `demo` → fixtures/sandbox/demo.json (beside src/ or dist/); anything with a slash or `.json` is a path. */
export function resolveSeedPath(seed: string): string {
  if (seed.includes('/') || seed.endsWith('.json')) return seed;
  return fileURLToPath(new URL(`../../fixtures/sandbox/${seed}.json`, import.meta.url));
}

export async function applySeed(store: Store, seed: string, clock: () => number = Date.now): Promise<void> {
  const path = resolveSeedPath(seed);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    // As for any input file: one that is not there is missing input (66).
    throw new InputMissingError(`sandbox seed '${seed}': cannot read ${path}: ${(error as Error).message}`, { path }, error);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // A user's file, not chatport's: a configuration mistake (78), never an internal error.
    throw new ConfigError(`sandbox seed ${path}: not JSON: ${(error as Error).message}`, { path }, error);
  }
  const parsed = SeedFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`sandbox seed ${path}: at ${issue.path.join('.')}: ${issue.message}`, { path, field: issue.path.join('.') });
  }
  const seedData = parsed.data;
  const now = clock();
  const userId = (name: string, where: string) => {
    const id = store.usersByName.get(name);
    if (id === undefined) throw new ConfigError(`sandbox seed ${path}: ${where} names unknown user '${name}'`, { path });
    return id;
  };
  if (seedData.settings) store.change({ t: 'settings', v: seedData.settings });
  for (const u of seedData.users) {
    if (store.usersByName.has(u.name)) continue;
    store.change({ t: 'user', v: { id: store.nextId('user'), ...u, createdTime: now } });
  }
  for (const [i, c] of seedData.channels.entries()) {
    if (store.channelsByName.has(c.name)) continue;
    const members = c.members.map((m) => userId(m, `channels.${i}.members`));
    if (c.type === 'DIRECT' && store.directByMembers.has(directKey(members))) continue;
    const id = store.nextId('channel');
    const creatorId = c.creator === undefined ? undefined : userId(c.creator, `channels.${i}.creator`);
    store.change({
      t: 'channel',
      v: { id, type: c.type, name: c.name, displayName: c.displayName ?? c.name, ...(creatorId !== undefined ? { creatorId } : {}), properties: c.properties, createdTime: now },
    });
    for (const u of members) store.change({ t: 'member', c: id, u, at: now });
  }
  for (const [i, m] of seedData.messages.entries()) {
    const channelId = store.channelsByName.get(m.channel);
    if (channelId === undefined) throw new ConfigError(`sandbox seed ${path}: messages.${i}.channel names unknown channel '${m.channel}'`, { path });
    const uid = m.user === undefined ? undefined : userId(m.user, `messages.${i}.user`);
    store.change({
      t: 'msg',
      v: {
        id: store.nextId('message'),
        type: m.type,
        channelId,
        ...(uid !== undefined ? { userId: uid } : {}),
        body: m.body,
        ...(m.groupTag ? { groupTag: m.groupTag } : {}),
        ...(m.properties ? { properties: m.properties } : {}),
        createdTime: now + i,
      },
    });
  }
}
