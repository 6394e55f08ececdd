/**
 * Verification of reply threads against a platform changed behind chatport's back: a seeded Slack export
 * (slack-migration/slack-diff.ts) migrated with its threads and verified exact, then replies changed over the
 * API as another client would (edited to the same length or another, their properties edited, one deleted,
 * one posted into a thread; as many of these as the export has replies; an orphan placed in its channel
 * edited; a reply sent twice; a thread's first reply moved to its end). `chatport verify` must name each change by kind and source key, and nothing
 * else. DIFF_SEEDS=1,2,... runs other seeds.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../../src/api/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { runVerify } from '../../src/pipeline/verify/run-verify.js';
import { all, startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';
import { caseDir, diffSeeds, generateSlackCase, writeSlackCase } from '../slack-migration/slack-diff.js';
import { byHand, type ByHand } from './by-hand.js';

// Each seed has a sandbox of its own: the generated exports of two seeds share user and channel names.
let f: ImportFixture;
let hand: ByHand;
beforeEach(async () => {
  f = await startImportFixture();
  hand = await byHand(f.sandbox);
});
afterEach(async () => {
  await f.close();
});

interface HeldReply {
  message: Message;
  /** The reply thread holding it; undefined for an orphan placed in its channel (its root is not in the export). */
  thread: bigint | undefined;
  /** The Slack source key: `<team>/<channel>/<ts>` (docs/slack-migration.md). */
  sourceKey: string;
}

/** Every reply the platform's threads hold for the pipeline, in thread order. */
async function heldReplies(pipelineId: string): Promise<HeldReply[]> {
  const replies: HeldReply[] = [];
  for (const channel of await all(f.client.channels.list())) {
    const marks = channel.properties as { chatportKey?: string; chatportPipeline?: string } | undefined;
    if (marks?.chatportPipeline !== pipelineId) continue;
    const team = String(marks.chatportKey).split('/')[0];
    for (const root of await all(f.client.channels.messages(channel.id, { pageSize: 100 }))) {
      const source = (root.properties as { source: { id: string; thread?: { isRoot?: boolean } } }).source;
      if (source.thread?.isRoot === false) replies.push({ message: root, thread: undefined, sourceKey: `${team}/${source.id}` });
      if ((root.repliesCount ?? 0) === 0) continue;
      const href = (root._links as unknown as { replies: { href: string } }).replies.href;
      const thread = BigInt(href.slice(href.lastIndexOf('/') + 1));
      for (const message of await all(f.client.threads.messages(thread, { pageSize: 100 })))
        replies.push({ message, thread, sourceKey: `${team}/${(message.properties as { source: { id: string } }).source.id}` });
    }
  }
  return replies;
}

/** The changes made to replies, one reply each, in this order while replies last. */
const CHANGES: Array<(reply: HeldReply) => Promise<string>> = [
  async ({ message, sourceKey }) => {
    const body = message.body!;
    await hand.mergePatch(`/messages/${message.id}`, { body: `${body.slice(0, -1)}${body.endsWith('#') ? '%' : '#'}` });
    return `changed messages ${sourceKey} body`;
  },
  async ({ message, sourceKey }) => {
    await hand.mergePatch(`/messages/${message.id}`, { body: `${message.body} (edited)` });
    return `changed messages ${sourceKey} body`;
  },
  async ({ message, sourceKey }) => {
    await hand.mergePatch(`/messages/${message.id}`, { properties: { source: { editedBy: 'someone else' } } });
    return `changed messages ${sourceKey} properties`;
  },
  async ({ message, sourceKey }) => {
    await hand.call('DELETE', `/messages/${message.id}`);
    return `missing messages ${sourceKey}`;
  },
];

/** Posts a reply as it is (body, sender, properties) into its thread again: a copy at the thread's end. */
const postAgain = ({ message, thread }: HeldReply) =>
  hand.call('POST', `/threads/${thread}/messages`, { type: message.type, body: message.body, user: { username: message.user!.name }, properties: message.properties });

/**
 * Changes as many thread replies as there are changes (or replies), posts one into the first thread, and
 * edits the first orphan; then, among the replies left as they were, sends one a second time, and moves the
 * first reply of a thread of three or more to its end. Returns what verification must name (an extra by its
 * platform id).
 */
async function tamperReplies(replies: readonly HeldReply[]): Promise<string[]> {
  const expected: string[] = [];
  const threaded = replies.filter((r) => r.thread !== undefined);
  for (const [i, change] of CHANGES.entries()) if (i < threaded.length) expected.push(await change(threaded[i]!));
  const first = threaded[0]!;
  const posted = await hand.call('POST', `/threads/${first.thread}/messages`, { type: 'TEXT', body: 'a reply chatport never sent', user: { username: first.message.user!.name } });
  expected.push(`extra messages ${String(posted.id)}`);
  const orphan = replies.find((r) => r.thread === undefined);
  if (orphan) expected.push(await CHANGES[1]!(orphan));
  const untouched = threaded.slice(CHANGES.length);
  const moved = untouched.find((r, i) => i + 2 < untouched.length && untouched[i + 2]!.thread === r.thread && (i === 0 || untouched[i - 1]!.thread !== r.thread));
  if (moved) {
    await hand.call('DELETE', `/messages/${moved.message.id}`);
    await postAgain(moved);
    expected.push(`out-of-order messages ${moved.sourceKey}`);
  }
  const twice = untouched.find((r) => r !== moved);
  if (twice) expected.push(`extra messages ${String((await postAgain(twice)).id)}`);
  return expected.sort();
}

describe.each(diffSeeds('1,2,21'))('reply threads changed by hand, seed %i', (seed) => {
  it('verification names each changed, deleted and posted reply, and nothing else', async () => {
    const c = generateSlackCase(seed);
    const dir = caseDir(f.dir, seed);
    const { config } = await writeSlackCase(dir, c, `tamper-threads-${seed}`, writePipeline);
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    const rejectsFiles = report.rejectsFile === undefined ? [] : [report.rejectsFile];
    const before = await runVerify({ config, rejectsFiles, sample: 'auto' }, { client: f.client });
    expect(before.differences, 'exact before any change').toEqual([]);

    const replies = await heldReplies(config.id);
    if (!replies.some((r) => r.thread !== undefined)) throw new Error(`seed ${seed}: the export has no thread replies to change`);
    const expected = await tamperReplies(replies);
    const { differences } = await runVerify({ config, rejectsFiles, sample: 'auto' }, { client: f.client });
    const named = differences.map((d) => (d.kind === 'extra' ? `extra ${d.stage} ${d.platformId}` : `${d.kind} ${d.stage} ${d.sourceKey}${d.fields ? ` ${d.fields.join(',')}` : ''}`)).sort();
    expect(named).toEqual(expected);
  }, 120_000);
});
