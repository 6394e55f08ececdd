import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { runVerify } from '../../src/pipeline/verify/run-verify.js';
import { startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

const readLines = async (file: string) => (await readFile(file, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

/** users.csv (id, username), channels.ndjson (key, type, name), members.csv (channel, user), messages.ndjson (id, channel, author, text). */
const STAGES: Record<string, string> = {
  users: 'users: { source: { path: users.csv }, key: id, mapping: { name: username, displayName: username, isGuest: { const: false } } }',
  channels: 'channels: { source: { path: channels.ndjson }, key: key, mapping: { type: type, name: name, displayName: name, members: { const: [] } } }',
  members: 'members: { source: { path: members.csv }, key: [channel, user], channel: channel, mapping: { username: user } }',
  messages: 'messages: { source: { path: messages.ndjson }, key: id, channel: channel, mapping: { type: { const: TEXT }, body: text, user: author } }',
};
const pipelineOf = (name: string, stages: string[]) => [`name: ${name}`, 'stages:', ...stages.map((stage) => `  ${STAGES[stage]!}`), ''].join('\n');

describe('rejects.ndjson', () => {
  it('lists every rejected record as the source holds it, whichever check rejected it, so the file can be fixed and fed back', async () => {
    const dir = join(f.dir, 'raw-rejects');
    await writeInput(dir, 'users.csv', 'id,username\nu1,rf-alice\n');
    await writeInput(dir, 'channels.ndjson', '{"key":"c1","type":"PUBLIC","name":"rf-general"}\n');
    await writeInput(dir, 'members.csv', 'channel,user\nc1,rf-alice\nc1,rf-carl\n');
    const messages = [
      { id: 'm1', channel: 'c1', author: 'rf-alice', text: 'one' },
      { id: 'm2', channel: 'c1', author: 'rf-carl', text: 'by a user the platform lacks' },
      { id: 'm3', channel: 'c1', author: 'rf-alice', text: '' },
      { id: 'm1', channel: 'c1', author: 'rf-alice', text: 'one, other content' },
    ];
    await writeInput(dir, 'messages.ndjson', messages.map((m) => JSON.stringify(m)).join('\n') + '\n');
    const { config } = await writePipeline(dir, pipelineOf('raw-rejects', ['users', 'channels', 'members', 'messages']));
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });

    expect(report.stages.members).toMatchObject({ read: 2, imported: 1, rejected: 1 });
    expect(report.stages.messages).toMatchObject({ read: 4, imported: 1, rejected: 3 });
    const rejects = await readLines(report.rejectsFile!);
    expect(rejects.map((r) => [r.stage, r.line, r.record])).toEqual([
      ['members', 3, { channel: 'c1', user: 'rf-carl' }],
      ['messages', 2, messages[1]],
      ['messages', 3, messages[2]],
      ['messages', 4, messages[3]],
    ]);
  });

  it('verify expects again a rejected record the source has fixed since: the platform without it is not exact', async () => {
    const dir = join(f.dir, 'fixed-rejects');
    await writeInput(dir, 'users.csv', 'id,username\nu1,fx-alice\n');
    await writeInput(dir, 'channels.ndjson', '{"key":"c1","type":"PUBLIC","name":"fx-general"}\n');
    const line = (id: string, author: string, text: string) => JSON.stringify({ id, channel: 'c1', author, text });
    const asRejected = [line('m1', 'fx-alice', 'one'), line('m2', 'fx-carl', 'two'), line('m3', 'fx-alice', ''), line('m4', 'fx-alice', 'four')];
    const messages = await writeInput(dir, 'messages.ndjson', `${asRejected.join('\n')}\n`);
    const { config } = await writePipeline(dir, pipelineOf('fixed-rejects', ['users', 'channels', 'messages']));
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    expect(report.stages.messages).toMatchObject({ read: 4, imported: 2, rejected: 2 });
    const verify = () => runVerify({ config, rejectsFiles: [report.rejectsFile!] }, { client: f.client });
    expect((await verify()).summary.status).toBe('exact');

    // The author and the empty body fixed in the source, nothing imported since: the platform lacks both.
    await writeFile(messages, `${[asRejected[0], line('m2', 'fx-alice', 'two'), line('m3', 'fx-alice', 'three'), asRejected[3]].join('\n')}\n`);
    const { summary, differences } = await verify();
    expect(summary.status).toBe('differences');
    expect(differences.map((d) => [d.kind, d.sourceKey])).toEqual([['missing', 'm2'], ['missing', 'm3']]);

    // The source as the run read it: its rejects are not expected, as before.
    await writeFile(messages, `${asRejected.join('\n')}\n`);
    expect((await verify()).summary.status).toBe('exact');

    // The same records with their keys in another order (a file re-saved by another tool): still the rejected ones.
    const reordered = (text: string) => JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(text) as Record<string, unknown>).reverse()));
    await writeFile(messages, `${asRejected.map(reordered).join('\n')}\n`);
    expect((await verify()).summary.status).toBe('exact');
  });
});

describe('a JSON array with one element that is not JSON', () => {
  it('rejects that element at its index and imports the ones after it; verification reads exact', async () => {
    const dir = join(f.dir, 'json-bad-element');
    await writeInput(dir, 'users.csv', 'id,username\nu1,jb-alice\n');
    await writeInput(dir, 'channels.ndjson', '{"key":"c1","type":"PUBLIC","name":"jb-general"}\n');
    const good = (id: string, text: string) => JSON.stringify({ id, channel: 'c1', author: 'jb-alice', text });
    await writeInput(dir, 'messages.json', `[\n${good('m1', 'one')},\n{"id":"m2","channel":"c1","author":"jb-alice","text":"two",},\n${good('m3', 'three')}\n]\n`);
    const stages = [STAGES.users, STAGES.channels, 'messages: { source: { path: messages.json }, key: id, channel: channel, mapping: { type: { const: TEXT }, body: text, user: author } }'];
    const { config } = await writePipeline(dir, ['name: json-bad-element', 'stages:', ...stages.map((s) => `  ${s}`), ''].join('\n'));
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });

    expect(report.status).toBe('completed-with-rejects');
    expect(report.stages.messages).toMatchObject({ read: 3, imported: 2, rejected: 1 });
    const rejects = await readLines(report.rejectsFile!);
    expect(rejects).toEqual([
      expect.objectContaining({ stage: 'messages', file: expect.stringMatching(/messages\.json$/), index: 1, record: '{"id":"m2","channel":"c1","author":"jb-alice","text":"two",}', reasons: [expect.objectContaining({ message: expect.stringMatching(/^not valid JSON: /) })] }),
    ]);
    const verified = await runVerify({ config, rejectsFiles: [report.rejectsFile!], outDir: report.runDir, exportWait: { pollIntervalMs: 20, timeoutMs: 60_000 } }, { client: f.client });
    expect(verified.summary.status).toBe('exact');
  });
});
