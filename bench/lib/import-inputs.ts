/**
 * The import benchmarks' generated workspace: 1,000 users, 100 channels of 20 members, N messages with
 * bodies in several scripts (accents, emoji, right-to-left) and an ISO timestamp typed as a date. The
 * messages are written as CSV, NDJSON or a JSON array: the same records, so the formats compare equal.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { join } from 'node:path';
import { generatedPipelineYaml } from '../../fixtures/csv-generated/pipeline.js';

export const USERS = 1000;
export const CHANNELS = 100;
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima', 'émoji 🎉', 'مرحبا'];

export type InputFormat = 'csv' | 'ndjson' | 'json';
export const MESSAGE_FILE: Record<InputFormat, string> = { csv: 'messages.csv', ndjson: 'messages.ndjson', json: 'messages.json' };

async function writeLines(path: string, head: string, count: number, line: (i: number) => string, separator = '\n', tail = ''): Promise<void> {
  const out = createWriteStream(path);
  out.write(head);
  let batch = '';
  for (let i = 0; i < count; i++) {
    batch += (i > 0 ? separator : '') + line(i);
    if (batch.length > 1 << 16) {
      if (!out.write(batch)) await once(out, 'drain');
      batch = '';
    }
  }
  out.end(`${batch}${tail}`);
  await once(out, 'finish');
}

interface Message {
  id: string;
  channel: string;
  author: string;
  sent_at: string;
  text: string;
}

function message(i: number): Message {
  const c = i % CHANNELS;
  const words = Array.from({ length: 6 + (i % 9) }, (_, k) => WORDS[(i + k * 3) % WORDS.length]).join(' ');
  return { id: `m${i}`, channel: `c${c}`, author: `user${(c * 7 + (i % 20)) % USERS}`, sent_at: new Date(1_700_000_000_000 + i * 1000).toISOString(), text: `${words}, number ${i}` };
}

async function writeMessages(path: string, format: InputFormat, count: number): Promise<void> {
  if (format === 'csv')
    return writeLines(path, 'id,channel,author,sent_at,text\n', count, (i) => {
      const m = message(i);
      return `${m.id},${m.channel},${m.author},${m.sent_at},"${m.text}"`;
    }, '\n', '\n');
  if (format === 'ndjson') return writeLines(path, '', count, (i) => JSON.stringify(message(i)), '\n', '\n');
  return writeLines(path, '[\n', count, (i) => JSON.stringify(message(i)), ',\n', '\n]\n');
}

/** Writes users.csv, channels.csv, the messages file and pipeline.yaml into `dir`. */
export async function generate(dir: string, messages: number, format: InputFormat = 'csv'): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeLines(join(dir, 'users.csv'), 'id,username,display\n', USERS, (i) => `u${i},user${i},User ${i}`, '\n', '\n');
  await writeLines(join(dir, 'channels.csv'), 'key,name,members\n', CHANNELS, (c) => `c${c},chan-${c},${Array.from({ length: 20 }, (_, k) => `user${(c * 7 + k) % USERS}`).join('|')}`, '\n', '\n');
  await writeMessages(join(dir, MESSAGE_FILE[format]), format, messages);
  await writeFile(
    join(dir, 'pipeline.yaml'),
    generatedPipelineYaml({
      name: `bench-${messages}`,
      options: process.env.BENCH_OPTIONS ?? '{ chunkRecords: 5000, chunkBytes: 4194304, concurrency: 4 }',
      messagesSource: `{ path: ${MESSAGE_FILE[format]} }`,
      messageProperties: process.env.BENCH_MAPPING === 'plain' ? '{ sourceId: id }' : '{ source: { id: id, sentAt: { field: sent_at, type: date } } }',
    }),
  );
}
