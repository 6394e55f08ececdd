/** A small threaded migration the tamper tests change by hand: imported and verified exact first. */
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Message } from '../../src/api/index.js';
import type { PipelineConfig } from '../../src/config/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { all, writeInput, writePipeline, type ImportFixture } from '../import/support.js';

/**
 * c1 holds roots m1 and m2 and the plain m8, c2 root m5; m3, m4 reply to m1, m6 to m2, m7 to m5. Users and
 * channels are named after `name` (`<name>a`, `<name>one`). `thread: false`: no threads and no keys. `more`:
 * rows after those, in their form (`m9,c1,a,text,parent`).
 */
export async function importThreads(f: ImportFixture, name: string, thread = true, more: string[] = []): Promise<PipelineConfig> {
  const dir = join(f.dir, name);
  await writeInput(dir, 'users.csv', `id,username,display\n1,${name}a,A\n2,${name}b,B\n`);
  await writeInput(dir, 'channels.csv', `key,name,members\nc1,${name}one,${name}a|${name}b\nc2,${name}two,${name}a|${name}b\n`);
  const rows = ['m1,c1,a,root one,', 'm2,c1,b,root two,', 'm3,c1,b,reply 1 to one,m1', 'm4,c1,a,reply 2 to one,m1', 'm5,c2,a,root five,', 'm6,c1,a,reply to two,m2', 'm7,c2,b,reply to five,m5', 'm8,c1,b,plain,', ...more];
  await writeInput(dir, 'messages.csv', ['id,channel,author,text,parent', ...rows.map((r) => r.replace(/,(a|b),/, `,${name}$1,`)), ''].join('\n'));
  const { config } = await writePipeline(dir, `name: ${name}
stages:
  users: { source: { path: users.csv }, key: id, mapping: { name: username, displayName: display, isGuest: { const: false } } }
  channels: { source: { path: channels.csv }, key: key, mapping: { type: { const: PUBLIC }, name: name, members: { field: members, split: "|" } } }
  messages: { source: { path: messages.csv }, key: id, channel: channel, ${thread ? 'thread: parent, ' : ''}mapping: { type: { const: TEXT }, user: author, body: text } }
`);
  const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
  expect(report.verification?.status).toBe('exact');
  return config;
}

/** The message of `body` in the channel named `channelName`. */
export async function inChannel(f: ImportFixture, channelName: string, body: string): Promise<Message> {
  const channel = (await all(f.client.channels.list())).find((c) => c.name === channelName)!;
  return (await all(f.client.channels.messages(channel.id))).find((m) => m.body === body)!;
}
