import type { Processed } from '../../transform/index.js';

/** Records of an export stage in batches of `size`, as the import's stage runner takes them. */
export function* inBatches(records: Iterable<Processed>, size = 512): Generator<Processed[]> {
  let batch: Processed[] = [];
  for (const record of records) {
    batch.push(record);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
