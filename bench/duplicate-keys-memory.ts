/**
 * Peak memory of the duplicate-key check (SourceDuplicates) for N distinct keys, in its own process:
 * `node dist-bench/bench/duplicate-keys-memory.js 5000000`. Prints the peak RSS above the process's RSS before the
 * first key, and the bytes the table and position index hold at the end.
 */
import { SourceDuplicates, idempotencyKeysOf, type Accepted } from '../src/transform/index.js';

const n = Number(process.argv[2] ?? 1_000_000);
const keyFor = idempotencyKeysOf('bench', 'messages');
const duplicates = new SourceDuplicates('reject', 'id');
const before = process.memoryUsage().rss;
const started = performance.now();
for (let i = 1; i <= n; i++) {
  const item = { type: 'TEXT', body: `message ${i}`, user: `user${i % 100}`, idempotencyKey: keyFor(`m${i}`) };
  const accepted: Accepted = { kind: 'accepted', item, position: { file: 'messages.csv', line: i + 1, index: i - 1 }, sourceKey: `m${i}` };
  duplicates.note(i, accepted.position);
  if (duplicates.check(i, accepted, JSON.stringify(item)) !== undefined) throw new Error(`key m${i} taken for a duplicate`);
}
const ms = performance.now() - started;
const peak = process.resourceUsage().maxRSS * 1024;
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MiB`;
console.log(
  `${n} keys: table + index ${mb(duplicates.bytes)} (${(duplicates.bytes / n).toFixed(1)} bytes/key); peak RSS ${mb(peak)}, ${mb(peak - before)} above the start; ${(ms / n * 1000).toFixed(2)} µs/record (key, JSON, fingerprint, check)`,
);
