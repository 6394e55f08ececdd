import type { StageName } from '../state/events.js';
import { DIFFERENCE_KINDS, emptyDifferenceCounts, type Difference, type DifferenceCounts, type SourcePosition, type StageVerification, type VerificationSummary } from './types.js';

/** `file:line`, or `file record n` where a format has no lines. */
export function where(position: SourcePosition | undefined): string {
  if (!position) return '';
  return position.line !== undefined ? `${position.file}:${position.line}` : `${position.file} record ${position.index}`;
}

export function countDifferences(differences: readonly Difference[]): DifferenceCounts {
  const counts = emptyDifferenceCounts();
  for (const d of differences) counts[d.kind]++;
  return counts;
}

export function stageVerification(expected: number, verified: number, differences: readonly Difference[]): StageVerification {
  return { expected, verified, differences: countDifferences(differences) };
}

/**
 * The verification as people read it: one line per stage, then every difference (up to `show`) at its source
 * position. `differences`: the first of them in source order (runVerify keeps a thousand); the summary counts all.
 */
export function formatVerification(summary: VerificationSummary, differences: readonly Difference[], show = 50): string {
  const total = DIFFERENCE_KINDS.reduce((n, k) => n + summary.counts[k], 0);
  const exact = summary.status === 'exact' ? exactVerdict(summary) : undefined;
  const out = [`verification: ${exact ? exact.headline : `DIFFERENCES (${describeCounts(summary.counts)})`}`];
  // On a line of its own: a terminal of 100 columns holds it with millions of messages.
  if (exact?.unread) out.push(`  ${exact.unread}`);
  const stages = Object.entries(summary.stages) as Array<[StageName, StageVerification]>;
  const width = Math.max(...stages.map(([s]) => s.length), 5);
  for (const [stage, s] of stages) {
    const found = describeCounts(s.differences);
    out.push(`  ${stage.padEnd(width)}  ${s.verified} of ${s.expected} verified on the platform${found ? `; ${found}` : ''}`);
  }
  if (summary.deletedSinceImport)
    out.push(`  ${summary.deletedSinceImport} of the missing record(s) deleted on the platform after a run imported them: the platform skips their taken keys, so no run imports them again (each named below)`);
  if (summary.missingNotLookedUp)
    out.push(`  ${summary.missingNotLookedUp} more missing record(s) not looked up among the runs' imports (past the first ${summary.lookedUp}): whether the platform deleted them after a run imported them is not known`);
  if (summary.contentChecked > 0) out.push(`  ${summary.contentChecked} message(s) compared in full (body, properties)`);
  for (const d of differences.slice(0, show)) out.push(`  ${d.kind.padEnd(12)} ${d.stage} ${d.sourceKey ?? '-'}${d.position ? ` (${where(d.position)})` : ''}: ${d.message}`);
  const shown = Math.min(show, differences.length);
  if (total > shown) out.push(`  … and ${total - shown} more${summary.files ? ` (all in ${summary.files.differences})` : ''}`);
  else if (summary.files && total > 0) out.push(`  differences: ${summary.files.differences}`);
  return `${out.join('\n')}\n`;
}

/**
 * Past the content sample a message is compared by its export row (author, type, body length) and place: a
 * body changed to one of the same length, or two alike messages swapped, pass unseen, so "exact" says so.
 */
export function exactVerdict(summary: VerificationSummary): { headline: string; unread?: string } {
  const unread = summary.sample ? summary.sample.of - summary.sample.picked : 0;
  if (unread <= 0) return { headline: 'exact — the platform holds exactly the expected records' };
  return {
    headline: 'exact by author, type, body length and order',
    unread: `${unread} of ${summary.sample!.of} message(s) not read in full (verify --sample N reads more)`,
  };
}

function describeCounts(counts: DifferenceCounts): string {
  return DIFFERENCE_KINDS.filter((k) => counts[k] > 0)
    .map((k) => `${counts[k]} ${k}`)
    .join(', ');
}

/**
 * `verify --json`: the same text as JSON.stringify({ ...head, differences }, null, 2), in pieces of a thousand
 * differences, so that millions of them (an import stopped half way) never make one string past what the
 * runtime can hold (about 512 MB): that stopped verify with a bug's exit code.
 */
export function* verificationJsonPieces(head: Record<string, unknown>, differences: Iterable<Difference>): Generator<string> {
  const whole = JSON.stringify({ ...head, differences: [] }, null, 2);
  let piece: string[] = [];
  let started = false;
  for (const d of differences) {
    if (piece.length === 1000) {
      yield `${started ? ',\n' : `${whole.slice(0, -'[]\n}'.length)}[\n`}${piece.join(',\n')}`;
      started = true;
      piece = [];
    }
    piece.push(JSON.stringify(d, null, 2).replace(/^/gm, '    '));
  }
  if (piece.length === 0) yield `${whole}\n`;
  else yield `${started ? ',\n' : `${whole.slice(0, -'[]\n}'.length)}[\n`}${piece.join(',\n')}\n  ]\n}\n`;
}
