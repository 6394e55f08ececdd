/**
 * Reads Parquet with hyparquet, a different implementation from the writer (parquet-wasm / arrow-rs).
 * Timestamps come back as epoch microseconds (bigint) so nothing is rounded through a Date.
 */
import { parquetMetadata, parquetReadObjects, type SchemaElement } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

/**
 * hyparquet's own decoder is `new TextDecoder()`, which drops a text's leading U+FEFF (and would turn bytes
 * that are not UTF-8 into U+FFFD): it would hide a writer that lost or mangled them. This one keeps the
 * U+FEFF and throws on bytes that are not UTF-8.
 */
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true, fatal: true });

/** One column chunk as a warehouse planner sees it: how it is encoded and the min/max it prunes by. */
export interface ColumnChunkFacts {
  encodings: string[];
  dictionaryPage: boolean;
  min: unknown;
  max: unknown;
  /** Whether the chunk has a page index (per-page min/max). */
  pageIndex: boolean;
}

export async function readParquet(bytes: Uint8Array): Promise<{ rows: Record<string, unknown>[]; schema: SchemaElement[]; rowGroups: number[]; chunks: Array<Record<string, ColumnChunkFacts>> }> {
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
      stringFromBytes: (bytes: Uint8Array | undefined) => bytes && utf8.decode(bytes),
    },
  });
  const chunks = metadata.row_groups.map((g) =>
    Object.fromEntries(
      g.columns.map((c) => {
        const m = c.meta_data!;
        const facts: ColumnChunkFacts = { encodings: m.encodings, dictionaryPage: m.dictionary_page_offset !== undefined, min: m.statistics?.min_value, max: m.statistics?.max_value, pageIndex: c.column_index_offset !== undefined };
        return [m.path_in_schema.join('.'), facts];
      }),
    ),
  );
  return { rows, schema: metadata.schema, rowGroups: metadata.row_groups.map((g) => Number(g.num_rows)), chunks };
}
