// The baseline the import is measured against: parse the CSV with csv-parse and serialize each record to
// JSON, nothing else (issue 4: chatport's CPU per record must stay within 2.5x of this).
import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';

let records = 0;
let bytes = 0;
for await (const record of createReadStream(process.argv[2]).pipe(parse({ columns: true }))) {
  bytes += JSON.stringify(record).length;
  records++;
}
process.stdout.write(JSON.stringify({ records, bytes }));
