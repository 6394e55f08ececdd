// The import's own reader alone (built dist/, as the import runs it: parseRecordBatches over the file), no
// mapping, checks, chunks or uploads: how much of the import's CPU per record its source format costs, beside
// that format's floor.
import { createReadStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [file, format] = process.argv.slice(2);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { parseRecordBatches } = await import(join(root, 'dist', 'formats', 'parse-records.js'));
let records = 0;
for await (const batch of parseRecordBatches(createReadStream(file), { file, format })) records += batch.length;
process.stdout.write(JSON.stringify({ records }));
