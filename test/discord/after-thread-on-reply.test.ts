import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatportClient } from '../../src/api/index.js';
import type { PipelineConfig } from '../../src/config/index.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { runVerify } from '../../src/pipeline/verify/run-verify.js';
import type { ImportFixture } from '../import/support.js';
import type { PlatformState } from '../slack-migration/support.js';
import { GUILD, LOBBY, ana, bo, file, importLobbyNightly, message, snowflakeAt } from './hand-made-export.js';

/**
 * A thread opened on an inline reply joins the thread of the message the reply answers (the platform has one
 * level of threads). Migrated whole, then an `--after` export (a nightly run, same state folder) with a new
 * message in that thread: its starter, the inline reply, is older than the range, so the export lacks it.
 * The same run's inline reply to that reply (which the earlier run sent as a thread reply) joins the same
 * thread. The earlier run's journal says which thread it sent the reply into: no thread is searched.
 */
const at = (minute: number) => `2024-03-01T10:${String(minute).padStart(2, '0')}:00.000+01:00`;
const m = (minute: number, content: string, author = ana, extra = {}) => message(snowflakeAt(at(minute), minute), minute, content, author, extra);
const replyTo = (id: string) => ({ type: 'Reply', reference: { messageId: id, channelId: LOBBY.id, guildId: GUILD.id } });
const question = m(1, 'question');
const answer = m(2, 'answer', bo, replyTo(question.id));
const onAnswer = { id: answer.id, type: 'GuildPublicThread', categoryId: LOBBY.id, category: 'lobby', name: 'answer', topic: null };
const after = { after: at(5), before: null };

const runs = [
  { lobby: file(LOBBY, [question, answer, m(4, 'back in the channel', bo)]), thread: file(onAnswer, [m(3, 'on the answer')]) },
  { lobby: file(LOBBY, [m(7, 'later'), m(8, 'on the answer again', ana, replyTo(answer.id))], after), thread: file(onAnswer, [m(6, 'a late answer', bo)], after) },
];
runs.push(runs[1]!); // the nightly run repeated: nothing is sent twice

let f: ImportFixture, reports: RunReport[], platform: PlatformState, config: PipelineConfig, stateDir: string;
beforeAll(async () => {
  ({ f, reports, platform, config, stateDir } = await importLobbyNightly(`Guild - Text Channels - answer [${answer.id}].json`, runs));
}, 60_000);
afterAll(() => f?.close());

const differencesOf = (verification: RunReport['verification']) => (verification !== undefined && 'stages' in verification ? verification.stages.messages?.differences : undefined);
// The platform holds the history before --after too (extra to this export), but nothing is missing or out of place.
const nothingAmiss = { missing: 0, misplaced: 0, 'out-of-order': 0, changed: 0 };

describe('an --after export of a thread opened on an inline reply before its range, and of a reply to that reply', () => {
  it('puts the new messages into the thread the reply is in, not at the channel\'s end, once', () => {
    const lobby = platform.channels.find((c) => c.slackId === LOBBY.id)!;
    expect(lobby.messages.map((x) => x.body)).toEqual(['question', 'back in the channel', 'later']);
    expect(lobby.threads.get(question.id)?.replies.map((x) => x.body)).toEqual(['answer', 'on the answer', 'a late answer', 'on the answer again']);
    expect(reports[1]!.stages.messages).toMatchObject({ replies: 2 });
    expect(reports[2]!.stages.messages).toMatchObject({ replies: 2, repliesHeld: 2 });
    for (const report of reports) expect(report.stages.messages?.orphans ?? 0).toBe(0);
    expect(reports[0]!.verification?.status).toBe('exact');
    for (const { verification } of reports.slice(1)) expect(differencesOf(verification)).toMatchObject(nothingAmiss);
  });

  it('is verified the same by a verify of the state folder without the run folder\'s roots', async () => {
    const result = await runVerify({ config, stateDirs: [stateDir] }, { client: f.client });
    expect(result.summary.stages.messages?.differences).toMatchObject(nothingAmiss);
  });
});

describe('the same nightly run after the thread\'s root was deleted on the platform (its replies with it)', () => {
  let g: ImportFixture, nightly: RunReport[], held: PlatformState;
  beforeAll(async () => {
    const deleteQuestion = async (index: number, fixture: ImportFixture) => {
      if (index !== 1) return;
      for await (const c of fixture.client.channels.list())
        for await (const x of fixture.client.channels.messages(c.id)) if ((x.properties?.source as { id?: string } | undefined)?.id === question.id) await fixture.client.messages.delete(x.id);
    };
    ({ f: g, reports: nightly, platform: held } = await importLobbyNightly(`Guild - Text Channels - answer [${answer.id}].json`, runs.slice(0, 2), { beforeRun: deleteQuestion }));
  }, 60_000);
  afterAll(() => g?.close());

  it('sends the new messages into the channel as orphans (the journal\'s thread is gone), and verifies them there', () => {
    const lobby = held.channels.find((c) => c.slackId === LOBBY.id)!;
    expect(lobby.messages.map((x) => x.body)).toEqual(['back in the channel', 'later', 'a late answer', 'on the answer again']);
    expect(nightly[1]!.status).toBe('succeeded');
    expect(nightly[1]!.stages.messages).toMatchObject({ orphans: 2, refused: 0 });
    expect(differencesOf(nightly[1]!.verification)).toMatchObject(nothingAmiss);
  });
});

describe('an --after export with new replies both to the question and in the thread on its answer (one platform thread)', () => {
  let g: ImportFixture, nightly: RunReport[], held: PlatformState;
  // Sends under way at once, at most (every reply here goes into one thread): two at once land in either order.
  let inFlight = 0, mostInFlight = 0;
  const oneAtATime = (fixture: ImportFixture): ChatportClient => {
    const threads = fixture.client.threads;
    const send: typeof threads.send = async (...args) => {
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      try {
        return await threads.send(...args);
      } finally {
        inFlight--;
      }
    };
    return Object.assign(Object.create(fixture.client) as ChatportClient, { threads: { ...threads, send } });
  };
  beforeAll(async () => {
    const both = { lobby: file(LOBBY, [m(7, 'later'), m(8, 'on the answer again', ana, replyTo(answer.id)), m(9, 'to the question', bo, replyTo(question.id))], after), thread: file(onAnswer, [m(6, 'a late answer', bo)], after) };
    ({ f: g, reports: nightly, platform: held } = await importLobbyNightly(`Guild - Text Channels - answer [${answer.id}].json`, [runs[0]!, both], { clientOf: oneAtATime }));
  }, 60_000);
  afterAll(() => g?.close());

  it('sends them into that thread one after the other, in the order the export is read, and verification finds nothing amiss', () => {
    const lobby = held.channels.find((c) => c.slackId === LOBBY.id)!;
    // The reader gives a reply whose parent the export has before those whose parent it lacks.
    expect(lobby.threads.get(question.id)?.replies.map((x) => x.body)).toEqual(['answer', 'on the answer', 'to the question', 'a late answer', 'on the answer again']);
    expect(mostInFlight).toBe(1);
    // Extra: only the history before --after (the lobby's question and back in the channel, the thread's
    // answer and on the answer), each once: the thread is compared once, not once per root naming it.
    expect(differencesOf(nightly[1]!.verification)).toEqual({ ...nothingAmiss, extra: 4 });
  });
});
