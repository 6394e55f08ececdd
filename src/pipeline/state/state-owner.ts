import { join } from 'node:path';
import { ChatportError } from '../../shared/errors.js';
import { writeFileAtomic } from './atomic-file.js';
import { readTextIfExists } from '../../shared/read-if-exists.js';

/** `<state>/pipeline.json`: the pipeline a state folder belongs to (docs/identity.md). */
export interface StateOwner {
  /** The pipeline's `id`: what its journal, idempotency keys and platform properties are keyed by. */
  id: string;
  /** Its name at the last run, for people. */
  name: string;
}

export function stateOwnerFile(stateDir: string): string {
  return join(stateDir, 'pipeline.json');
}

/**
 * Claims a state folder for a pipeline, or refuses one that belongs to another (STATE_FOREIGN, exit 78),
 * before anything is sent: a journal says what *its* pipeline committed, and another id would read it as
 * its own (a renamed pipeline imported every message again). A folder without pipeline.json (made before
 * chatport wrote one) belongs to `journalPipeline`, the pipeline its journal's last run names (by id or
 * name). A new name under the same id is a rename done right: the file takes the new name.
 */
export async function claimStateFolder(stateDir: string, pipeline: StateOwner, journalPipeline: string | undefined): Promise<void> {
  const recorded = await refuseForeignState(stateDir, pipeline, journalPipeline);
  if (recorded?.name === pipeline.name) return;
  await writeFileAtomic(stateOwnerFile(stateDir), `${JSON.stringify({ id: pipeline.id, name: pipeline.name }, null, 2)}\n`);
}

/**
 * The same refusal, reading only (`chatport status` must not show another pipeline's run as this one's).
 * Returns the recorded owner, if any.
 */
export async function refuseForeignState(stateDir: string, pipeline: StateOwner, journalPipeline: string | undefined): Promise<StateOwner | undefined> {
  const recorded = await readOwner(stateOwnerFile(stateDir));
  if (recorded !== undefined && recorded.id !== pipeline.id) throw foreignState(stateDir, recorded, pipeline);
  if (recorded === undefined && journalPipeline !== undefined && journalPipeline !== pipeline.id && journalPipeline !== pipeline.name)
    throw foreignState(stateDir, { id: journalPipeline, name: journalPipeline }, pipeline);
  return recorded;
}

async function readOwner(file: string): Promise<StateOwner | undefined> {
  const text = await readTextIfExists(file);
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const o = parsed as Partial<StateOwner> | undefined;
  if (typeof o?.id !== 'string' || o.id === '')
    throw new ChatportError(`${file}: not a state folder owner record (expected JSON {"id": "<pipeline id>", "name": "<name>"}); restore it or remove the state folder`, {
      code: 'CONFIG_STATE_OWNER',
      details: { file },
    });
  return { id: o.id, name: typeof o.name === 'string' ? o.name : o.id };
}

/** Journals record the pipeline's name, which was its id unless the file set one. */
function foreignState(stateDir: string, owner: StateOwner, pipeline: StateOwner): ChatportError {
  const who = owner.name === owner.id ? `"${owner.id}"` : `"${owner.name}" (id "${owner.id}")`;
  return new ChatportError(
    `the state folder ${stateDir} belongs to pipeline ${who}, not to this pipeline (id "${pipeline.id}"); nothing was sent. ` +
      `If you renamed the pipeline, add \`id: ${owner.id}\` to the pipeline file so it keeps its identity; ` +
      `if this is another pipeline, give it its own state folder (--state or \`state:\`).`,
    { code: 'STATE_FOREIGN', details: { stateDir, owner: owner.id, ownerName: owner.name, pipeline: pipeline.id } },
  );
}
