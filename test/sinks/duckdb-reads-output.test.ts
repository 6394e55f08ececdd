/** A warehouse-style engine (DuckDB) reads the published Parquet layout, with Hive partitions and UTC types. */
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createLocalDestination, writeExport } from '../../src/sinks/index.js';
import { asyncRows, sampleRows, sampleSchema } from './sample-rows.js';

let root: string | undefined;
afterAll(() => (root ? rm(root, { recursive: true, force: true }) : undefined));

it('DuckDB reads every partition file with the declared types and exact values', async () => {
  root = await mkdtemp(join(tmpdir(), 'chatport-duck-'));
  const common = { dataset: 'messages', runId: 'R1', format: 'parquet' as const, schema: sampleSchema, destination: createLocalDestination(root) };
  await writeExport(asyncRows(sampleRows(1200)), { ...common, date: '2026-11-20', maxFileBytes: 1, parquet: { rowGroupRows: 500 } });
  await writeExport(asyncRows(sampleRows(10)), { ...common, date: '2026-11-21' });

  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  try {
    const glob = join(root, 'messages/*/*.parquet');
    const described = await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${glob}', hive_partitioning = true)`);
    expect(Object.fromEntries(described.getRowObjects().map((r) => [r.column_name, r.column_type]))).toEqual({
      id: 'BIGINT',
      channelId: 'BIGINT',
      bodyLength: 'INTEGER',
      isGuest: 'BOOLEAN',
      name: 'VARCHAR',
      createdTime: 'TIMESTAMP WITH TIME ZONE',
      editedTime: 'TIMESTAMP WITH TIME ZONE',
      dt: 'DATE',
    });
    const counts = await connection.runAndReadAll(
      `SELECT CAST(dt AS VARCHAR) AS dt, count(*) AS n, count(channelId) AS with_channel, min(id)::VARCHAR AS min_id,
              epoch_us(max(editedTime)) AS max_edited_us
         FROM read_parquet('${glob}', hive_partitioning = true) GROUP BY dt ORDER BY dt`,
    );
    expect(counts.getRowObjects()).toEqual([
      { dt: '2026-11-20', n: 1200n, with_channel: 960n, min_id: '9007199254740993', max_edited_us: BigInt(Date.UTC(2026, 10, 21, 10, 30, 0, 123)) * 1000n + 456n + 1198n },
      { dt: '2026-11-21', n: 10n, with_channel: 8n, min_id: '9007199254740993', max_edited_us: BigInt(Date.UTC(2026, 10, 21, 10, 30, 0, 123)) * 1000n + 456n + 8n },
    ]);
  } finally {
    connection.closeSync();
    db.closeSync();
  }
});
