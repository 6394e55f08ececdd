// Issue 12's floor for a CSV import: csv-parse in array mode, one object per row (built from the header),
// JSON.stringify of each. Nothing a real import needs beyond that (mapping, checks, chunks, uploads).
import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';

let records = 0;
let bytes = 0;
let header;
for await (const row of createReadStream(process.argv[2]).pipe(parse())) {
  if (!header) {
    header = row;
    continue;
  }
  const record = {};
  for (let i = 0; i < header.length; i++) record[header[i]] = row[i];
  bytes += JSON.stringify(record).length;
  records++;
}
process.stdout.write(JSON.stringify({ records, bytes }));
