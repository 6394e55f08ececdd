import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { heapUsed } from '../helpers/heap-used.js';
import { replyUpdates } from '../../src/pipeline/import/replies/deliver.js';
import type { JournalEvent } from '../../src/pipeline/state/events.js';
import { openJournal, readJournalEvents } from '../../src/pipeline/state/journal.js';
import { RunStateFold, emptyRunState } from '../../src/pipeline/state/run-state.js';

/** 4,000 replies patched, each copy and source 5,000 characters: 40 MB of content if it were kept. */
const UPDATES = 4000;
const BODY = 5000;
const keyOf = (i: number) => `C${i % 7}/16001${String(i).padStart(5, '0')}.000100`;
// Fresh strings, as a page's parse makes them.
const differencesOf = (i: number) => JSON.parse(JSON.stringify([{ field: 'body', platform: `old ${i} `.padEnd(BODY, 'o'), source: `new ${i} `.padEnd(BODY, 'n') }])) as Array<{ field: string; platform: string; source: string }>;

/**
 * A run may patch every reply (an upsert after a mapping change): what it keeps of each update to the end
 * of the run (and rebuilds on resume) must not hold the copy's and the source's content.
 */
describe('replies patched by a run (reply-updating)', () => {
  it('are kept without their content, in the run and once folded on resume, and read back from the journal', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'reply-updates-')), 'journal.ndjson');
    const journal = await openJournal<JournalEvent>(path, 0);
    await journal.append({ t: 'run-started', runId: 'r1', pipeline: 'p', at: '2026-01-01T00:00:00Z', attempt: 1 });
    const state = emptyRunState().stages.messages.replies;
    const before = heapUsed();
    for (let i = 0; i < UPDATES; i++) await replyUpdates({ journal, state }, keyOf(i)).journal(BigInt(1_000_000 + i), differencesOf(i));
    // Well under one copy's content a reply (about 10 kB here): the content stays in the journal file.
    expect(heapUsed() - before).toBeLessThan(8e6);
    expect(state.updating.size).toBe(UPDATES);
    expect((await replyUpdates({ journal, state }, keyOf(17)).earlier())).toEqual({ id: 1_000_017, differences: differencesOf(17) });
    await journal.close();

    const fold = new RunStateFold();
    const beforeFold = heapUsed();
    const { validBytes } = await readJournalEvents<JournalEvent>(path, (e, line) => fold.add(e, line));
    expect(heapUsed() - beforeFold).toBeLessThan(8e6);
    const resumed = fold.state.stages.messages.replies;

    // A resumed attempt appends after what it read, and still reads each update back from its own line.
    const again = await openJournal<JournalEvent>(path, validBytes);
    await replyUpdates({ journal: again, state: resumed }, 'late').journal(7, differencesOf(9));
    expect(await replyUpdates({ journal: again, state: resumed }, keyOf(UPDATES - 1)).earlier()).toEqual({ id: 1_000_000 + UPDATES - 1, differences: differencesOf(UPDATES - 1) });
    expect(await replyUpdates({ journal: again, state: resumed }, 'late').earlier()).toEqual({ id: 7, differences: differencesOf(9) });
    expect(await replyUpdates({ journal: again, state: resumed }, 'never patched').earlier()).toBeUndefined();
    await again.close();
  }, 60_000);
});
