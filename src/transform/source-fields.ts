import { compileMapping, type MappedSourceField } from './compile-mapping.js';
import type { FieldRef } from './mapping-spec.js';
import type { StageProcessorSpec } from './stage-processor.js';
import { IMPLIED_TYPES } from './stages.js';

/**
 * Every source field a stage reads, with where the stage spec names it (`mapping.properties.dept`, `key`,
 * `key.1`, `channel`, `skip.0.field`): what the source must have for the stage to work. Pure; throws
 * MappingError as createStageProcessor does for a mapping that cannot compile.
 */
export function stageSourceFields(spec: StageProcessorSpec): MappedSourceField[] {
  const out: MappedSourceField[] = [];
  if (typeof spec.key === 'string') out.push({ path: 'key', field: spec.key });
  else spec.key.forEach((field, i) => out.push({ path: `key.${i}`, field }));
  if (spec.channel !== undefined) out.push({ path: 'channel', field: spec.channel });
  if (spec.thread !== undefined) out.push({ path: 'thread', field: spec.thread });
  for (const used of compileMapping(spec.mapping, { impliedTypes: IMPLIED_TYPES[spec.stage] }).sourceFields) out.push({ path: `mapping.${used.path}`, field: used.field });
  (spec.skip ?? []).forEach((rule, i) => out.push({ path: `skip.${i}.field`, field: rule.field }));
  return out;
}

/** A field reference as people write it: `name`, or `user.name` for a path into nested records. */
export function fieldRefName(ref: FieldRef): string {
  return typeof ref === 'string' ? ref : ref.join('.');
}

/** The value at a field reference of a record (undefined when any step is missing). */
export function valueAt(record: Record<string, unknown>, ref: FieldRef): unknown {
  if (typeof ref === 'string') return record[ref];
  let v: unknown = record;
  for (const k of ref) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

/**
 * Remembers which of a stage's source fields any record had (a value other than undefined), batch by
 * batch; once a field has been seen it is no longer looked for, so after the first records this costs
 * nothing. What stays unseen at the end of the stage was never in the input.
 */
export class FieldPresence {
  private unseen: MappedSourceField[];

  constructor(fields: readonly MappedSourceField[]) {
    this.unseen = [...fields];
  }

  /** Looks at the records among `items` (source items; unparseable ones are passed over). */
  observe(items: ReadonlyArray<object>): void {
    if (this.unseen.length === 0) return;
    for (const item of items) {
      if (!('record' in item)) continue;
      const record = item.record as Record<string, unknown>;
      if (this.unseen.some((u) => valueAt(record, u.field) !== undefined)) this.unseen = this.unseen.filter((u) => valueAt(record, u.field) === undefined);
      if (this.unseen.length === 0) return;
    }
  }

  /** The fields no record observed so far had. */
  missing(): readonly MappedSourceField[] {
    return this.unseen;
  }
}
