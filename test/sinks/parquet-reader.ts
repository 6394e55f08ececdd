/**
 * Reads Parquet with hyparquet, a different implementation from the writer (parquet-wasm / arrow-rs).
 * Timestamps come back as epoch microseconds (bigint) so nothing is rounded through a Date.
 */
import { parquetMetadata, parquetReadObjects, type SchemaElement } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

export async function readParquet(bytes: Uint8Array): Promise<{ rows: Record<string, unknown>[]; schema: SchemaElement[]; rowGroups: number[] }> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const metadata = parquetMetadata(file);
  const rows = await parquetReadObjects({
    file,
    compressors,
    parsers: {
      timestampFromMilliseconds: (ms: bigint) => ms * 1000n,
      timestampFromMicroseconds: (us: bigint) => us,
      timestampFromNanoseconds: () => {
        throw new Error('nanosecond timestamps must never be written');
      },
    },
  });
  return { rows, schema: metadata.schema, rowGroups: metadata.row_groups.map((g) => Number(g.num_rows)) };
}
