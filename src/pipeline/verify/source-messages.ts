import type { Message } from '../../api/index.js';
import type { PipelineConfig, StageConfig } from '../../config/index.js';
import { withoutPlacementFacts, type ChannelIdLookup } from '../../transform/index.js';
import { ownProperties } from './compare-records.js';
import { expectedRecords, type ExpectedReadDeps } from './expected-source.js';
import type { SourcePosition } from './types.js';
import { samePatchedValue } from '../../shared/merge-patch.js';

/** One expected message as the source has it, found again by its ordinal. */
export interface SourceMessage {
  sourceKey: string;
  position: SourcePosition;
  channelKey: string;
  item: { type?: unknown; body?: unknown; user?: unknown; groupTag?: unknown; properties?: unknown };
}

/**
 * The second read: only when something must be named or checked in full, the messages stage is read
 * again (the same sequence as the first read) and the records at the wanted ordinals are kept.
 */
export async function readMessagesAt(
  config: PipelineConfig,
  stage: StageConfig,
  ordinals: ReadonlySet<number>,
  deps: ExpectedReadDeps & { channelIds: ChannelIdLookup },
  streamed?: StreamedOrdinals,
): Promise<Map<number, SourceMessage>> {
  const out = new Map<number, SourceMessage>();
  const passing = streamed?.ordinals ?? new Uint32Array(0);
  if (ordinals.size === 0 && passing.length === 0) return out;
  let last = passing.length > 0 ? passing[passing.length - 1]! : 0;
  for (const o of ordinals) last = Math.max(last, o);
  let ordinal = 0;
  let at = 0;
  for await (const p of expectedRecords(config, stage, deps)) {
    const passes = at < passing.length && passing[at] === ordinal;
    if (passes || ordinals.has(ordinal)) {
      const src = { sourceKey: p.sourceKey, position: p.position, channelKey: p.channelKey!, item: asRenamed(p.item, config.renamedUsers) };
      const keep = passes ? streamed!.visit(at++, src) : true;
      if (keep || ordinals.has(ordinal)) out.set(ordinal, src);
    }
    if (++ordinal > last) break;
  }
  return out;
}

/**
 * Ordinals (ascending) whose records are handed to `visit` as the read passes them, and kept only when it
 * says so: millions of missing messages are named one by one, not held (verify-messages.ts).
 */
export interface StreamedOrdinals {
  ordinals: Uint32Array;
  /** `at`: the index into `ordinals`. True: keep the record in the map returned. */
  visit(at: number, src: SourceMessage): boolean;
}

/** The item with its author as the platform names that user now (PipelineConfig.renamedUsers). */
function asRenamed(item: SourceMessage['item'], renamed: ReadonlyMap<string, string> | undefined): SourceMessage['item'] {
  const to = renamed !== undefined && typeof item.user === 'string' ? renamed.get(item.user) : undefined;
  return to === undefined ? item : { ...item, user: to };
}

/** Fields whose content differs between the source's message and the platform's (chatport's own properties aside). */
export function messageContentDifferences(source: SourceMessage['item'], platform: Message): string[] {
  const fields: string[] = [];
  if (source.type !== platform.type) fields.push('type');
  if ((source.user ?? undefined) !== platform.user?.name) fields.push('user');
  if ((source.body ?? undefined) !== platform.body) fields.push('body');
  if ((source.groupTag ?? undefined) !== platform.groupTag) fields.push('groupTag');
  const props = source.properties;
  if (!samePatchedValue(withoutPlacementFacts(ownProperties(props && typeof props === 'object' ? (props as Record<string, unknown>) : undefined)), withoutPlacementFacts(ownProperties(platform.properties)))) fields.push('properties');
  return fields;
}
