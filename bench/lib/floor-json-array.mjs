// The floor for a JSON-array import: the whole file read and JSON.parse'd at once (the fastest way there
// is, though it holds the file in memory: a streaming reader cannot do better), JSON.stringify of each element.
import { readFileSync } from 'node:fs';

let records = 0;
let bytes = 0;
for (const element of JSON.parse(readFileSync(process.argv[2], 'utf8'))) {
  bytes += JSON.stringify(element).length;
  records++;
}
process.stdout.write(JSON.stringify({ records, bytes }));
