import type { StageConfig } from '../../../config/index.js';
import { pairEditedPosts, postSlotOf } from '../../../transform/mattermost/post-keys.js';
import type { HeldCopy } from '../held-messages.js';
import type { PresentReplies } from './deliver.js';

/**
 * A Mattermost reply its thread does not hold under its id, which hashes its text: its copy there under an
 * earlier text's id (edited between two exports), paired within its slot (author, millisecond) as root
 * posts are (post-keys.ts pairEditedPosts; `slotSiblings`: the thread's replies of the slot, in order).
 * Undefined for any other stage, a reply whose id is not plain, or a new reply.
 */
export function earlierReplyVersion(stage: StageConfig, present: PresentReplies, reply: { key: string; slotSiblings?: readonly string[] }): HeldCopy | undefined {
  if (stage.platformExport?.platform !== 'mattermost') return undefined;
  const slot = postSlotOf(reply.key);
  if (slot === undefined) return undefined;
  return pairEditedPosts(reply.slotSiblings ?? [reply.key], (id) => present.has(id), bySlot(present).get(slot) ?? []).get(reply.key);
}

/** What a target holds, by slot, in its order: made once per read of the target (a thread's replies are read once while they are sent). */
function bySlot(present: PresentReplies): Map<string, Array<[string, HeldCopy]>> {
  let slots = slotsOf.get(present);
  if (slots === undefined) {
    slots = new Map();
    for (const [id, copy] of present) {
      const slot = postSlotOf(id);
      if (slot !== undefined) (slots.get(slot) ?? slots.set(slot, []).get(slot)!).push([id, copy]);
    }
    slotsOf.set(present, slots);
  }
  return slots;
}

const slotsOf = new WeakMap<PresentReplies, Map<string, Array<[string, HeldCopy]>>>();
