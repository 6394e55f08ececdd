import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { runVerify } from '../../src/pipeline/verify/run-verify.js';
import { all, startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

/**
 * Integers beyond 2^53 as values (not keys): a number in the source is a number on the platform, with every
 * digit, when the mapping carries it untyped or as `type: json`; where the mapping uses it as text (keys,
 * names, templates, `type: string`) it is its digits, as before.
 */

const BIG = '12345678901234567890';
const NEGATIVE = '-9007199254740993';

const PIPELINE = `name: bigvals
options: { chunkRecords: 2 }
stages:
  users:
    source: { path: users.ndjson }
    key: id
    mapping:
      name: name
      displayName: { template: "{name} {big}" }
      isGuest: { const: false }
      properties: { big: big, meta: { field: meta, type: json }, list: list, text: { field: big, type: string }, nested: { deep: big } }
  channels:
    source: { path: channels.csv }
    key: key
    mapping: { type: { const: PUBLIC }, name: name, members: { field: members, split: "|" }, properties: { meta: { field: meta, type: json } } }
  messages:
    source: { path: messages.json, format: json }
    key: id
    channel: channel
    mapping: { type: { const: TEXT }, body: { template: "n={big}" }, user: author, properties: { big: big, meta: { field: meta, type: json } } }
`;

async function writeSources(dir: string): Promise<void> {
  await writeInput(
    dir,
    'users.ndjson',
    [
      `{"id":"2","name":"sb-b","meta":{"big":${BIG}},"big":${BIG},"list":[${BIG},1,${NEGATIVE}]}`,
      // The key itself beyond 2^53: a key is text (its digits).
      `{"id":${BIG},"name":"sb-c","meta":{"big":1},"big":${NEGATIVE},"list":[]}`,
      // No name: rejected, and listed with its number as read.
      `{"id":"4","meta":{},"big":${BIG},"list":[]}`,
      '',
    ].join('\n'),
  );
  await writeInput(dir, 'channels.csv', `key,name,members,meta\nc1,sb-room,sb-b|sb-c,"{""big"":${BIG},""ids"":[${NEGATIVE}]}"\n`);
  await writeInput(
    dir,
    'messages.json',
    `[{"id":${BIG},"channel":"c1","author":"sb-b","big":${BIG},"meta":{"n":${NEGATIVE}}},{"id":"m2","channel":"c1","author":"sb-c","big":${NEGATIVE},"meta":{}}]`,
  );
}

async function rawGet(f: ImportFixture, path: string): Promise<string> {
  const res = await fetch(`${f.sandbox.url}${path}`, { headers: { authorization: `Bearer ${f.sandbox.issueToken()}` } });
  expect(res.status).toBe(200);
  return res.text();
}

describe('integers beyond 2^53 as values of JSON sources', () => {
  let f: ImportFixture;
  beforeAll(async () => {
    f = await startImportFixture();
  });
  afterAll(() => f.close());

  it('reach the platform as JSON numbers with every digit (untyped, type json, nested, in lists), as text where used as text; verify is exact', async () => {
    const dir = join(f.dir, 'bigvals');
    await writeSources(dir);
    const { config } = await writePipeline(dir, PIPELINE);
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    expect(report.stages.users).toMatchObject({ read: 3, imported: 2, rejected: 1 });
    expect(report.stages.channels).toMatchObject({ read: 1, imported: 1, rejected: 0 });
    expect(report.stages.messages).toMatchObject({ read: 2, imported: 2, rejected: 0 });

    // NDJSON, untyped and type json: bare number tokens, exact; type string and the template: the digits as text.
    const users = await rawGet(f, '/users?name=sb-b');
    expect(users).toContain(`"big":${BIG}`);
    expect(users).toContain(`"meta":{"big":${BIG}}`);
    expect(users).toContain(`"list":[${BIG},1,${NEGATIVE}]`);
    expect(users).toContain(`"nested":{"deep":${BIG}}`);
    expect(users).toContain(`"text":"${BIG}"`);
    expect(users).toContain(`"displayName":"sb-b ${BIG}"`);
    expect(users).not.toContain(`"big":"${BIG}"`);
    // A key beyond 2^53 stays its digits (the identity property is text).
    const keyed = await rawGet(f, '/users?name=sb-c');
    expect(keyed).toContain(`"chatportKey":"${BIG}"`);
    expect(keyed).toContain(`"big":${NEGATIVE}`);

    // A CSV cell of type json.
    const channel = (await all(f.client.channels.list())).find((c) => c.name === 'sb-room')!;
    const channels = await rawGet(f, `/channels/${String(channel.id)}`);
    expect(channels).toContain(`"meta":{"big":${BIG},"ids":[${NEGATIVE}]}`);

    // A JSON array's records, as messages.
    const messages = await rawGet(f, `/channels/${String(channel.id)}/messages`);
    expect(messages).toContain(`"big":${BIG}`);
    expect(messages).toContain(`"big":${NEGATIVE}`);
    expect(messages).toContain(`"meta":{"n":${NEGATIVE}}`);
    expect(messages).toContain(`"body":"n=${BIG}"`);

    // The rejected record is listed as read: its number a number.
    const rejects = await readFile(report.rejectsFile!, 'utf8');
    expect(rejects).toContain(`"big":${BIG}`);
    expect(rejects).not.toContain(`"${BIG}"`);

    const result = await runVerify({ config, rejectsFiles: [report.rejectsFile!], outDir: report.runDir, exportWait: { pollIntervalMs: 20, timeoutMs: 120_000 } }, { client: f.client });
    expect(result.differences).toEqual([]);
    expect(result.summary.status).toBe('exact');
  });
});
