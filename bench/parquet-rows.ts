/**
 * Deterministic generated rows shaped like the messages analytics export (decisions.md), for the Parquet
 * writer benchmark. One object per row, produced lazily so memory never holds the dataset.
 */
export interface BenchRow {
  id: bigint;
  type: string;
  channelId: bigint;
  channelName: string | null;
  userId: bigint | null;
  username: string | null;
  bodyLength: number;
  repliesCount: number;
  reactionsCount: number;
  groupTag: string | null;
  createdTime: number;
  lastEditedTime: number | null;
  isSystem: boolean;
}

const BASE_MS = Date.UTC(2026, 10, 21);

export function* generateBenchRows(count: number): Generator<BenchRow> {
  for (let i = 0; i < count; i++) {
    const channel = i % 5000;
    const user = (i * 7919) % 100_000;
    const system = i % 50 === 0;
    yield {
      id: BigInt(1_000_000_000_000 + i),
      type: system ? 'SYSTEM_TEXT' : 'TEXT',
      channelId: BigInt(10_000 + channel),
      channelName: channel % 3 === 0 ? null : `channel-${channel}`,
      userId: system ? null : BigInt(50_000 + user),
      username: system ? null : `user${user}`,
      bodyLength: (i * 31) % 2000,
      repliesCount: i % 7,
      reactionsCount: (i * 13) % 11,
      groupTag: i % 4 === 0 ? `tag-${i % 97}` : null,
      createdTime: BASE_MS + i * 37,
      lastEditedTime: i % 9 === 0 ? BASE_MS + i * 37 + 5000 : null,
      isSystem: system,
    };
  }
}
