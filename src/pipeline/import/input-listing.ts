import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { ChatportError } from '../../shared/errors.js';
import type { InputObject } from '../../sources/index.js';
import type { InputListing, StageName } from '../state/events.js';
import type { RunState } from '../state/run-state.js';

export type { InputListing } from '../state/events.js';

/**
 * What a stage's locations list now, or (with each object's size and version as its read found them:
 * read-stage.ts) what the stage read. The latter is journaled with the stage's end (stage-input-read), so a
 * resumed run can tell that a stage it will not read again has other input now (rows appended, a file
 * added or removed), and an object replaced before the stage read it is not taken for one changed after. Names without their folders: a run resumed with its folders moved is the same input. An S3
 * object replaced by one of the same size is told by its ETag (`versions`, a digest of its own so that
 * journals written before it still match); a local file edited in place to the same size is not seen here
 * (the chunks' sha256 catches it in a stage still read).
 */
export function listingOf(inputs: readonly InputObject[]): InputListing {
  const digest = createHash('sha256');
  const versions = createHash('sha256');
  let bytes = 0;
  let versioned = false;
  for (const input of inputs) {
    digest.update(`${basename(input.uri)}\t${input.size ?? '?'}\n`);
    versions.update(`${input.version ?? '?'}\n`);
    versioned ||= input.version !== undefined;
    bytes += input.size ?? 0;
  }
  return { files: inputs.length, bytes, sha256: digest.digest('hex'), ...(versioned ? { versions: versions.digest('hex') } : {}) };
}

/** The stage the interrupted run finished reading lists other input now: resuming would mix two inputs. */
export function finishedStageInputChanged(stage: StageName, then: InputListing, now: InputListing): ChatportError {
  const said = (l: InputListing) => `${l.files} file${l.files === 1 ? '' : 's'}, ${l.bytes.toLocaleString('en-US')} bytes`;
  const sizes = then.files === now.files && then.bytes === now.bytes ? 'the same count and bytes, other names, sizes or versions' : `${said(then)} then, ${said(now)} now`;
  return new ChatportError(
    `the ${stage} input changed since the interrupted run read it (${sizes}): that stage is not read again on resume, so its new or changed records would be left out and the rest of the run would work from two inputs; finish with the original input, or start over with --restart`,
    { code: 'INPUT_CHANGED', details: { stage, then, now } },
  );
}

/** The listings the run's journal holds, by stage (stages read to their end in a version that kept them). */
export function journaledListings(state: RunState): Partial<Record<StageName, InputListing>> {
  const listings: Partial<Record<StageName, InputListing>> = {};
  for (const [stage, s] of Object.entries(state.stages) as Array<[StageName, RunState['stages'][StageName]]>) if (s.input?.inputs) listings[stage] = s.input.inputs;
  return listings;
}

/** Throws for the first stage whose journaled listing differs from the one this attempt found. */
export function checkFinishedStageInputs(journaled: Partial<Record<StageName, InputListing | undefined>>, current: ReadonlyMap<StageName, InputListing>): void {
  for (const [stage, then] of Object.entries(journaled) as Array<[StageName, InputListing | undefined]>) {
    const now = current.get(stage);
    if (then === undefined || now === undefined) continue;
    const otherVersions = then.versions !== undefined && now.versions !== undefined && then.versions !== now.versions;
    if (then.sha256 !== now.sha256 || otherVersions) throw finishedStageInputChanged(stage, then, now);
  }
}
