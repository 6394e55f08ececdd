// The floor for an NDJSON import: split the text at line feeds, JSON.parse each line, JSON.stringify each.
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

const decoder = new StringDecoder('utf8');
let records = 0;
let bytes = 0;
let pending = '';
const take = (line) => {
  if (line === '') return;
  bytes += JSON.stringify(JSON.parse(line)).length;
  records++;
};
for await (const chunk of createReadStream(process.argv[2])) {
  const text = pending + decoder.write(chunk);
  let start = 0;
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
    take(text.slice(start, nl));
    start = nl + 1;
  }
  pending = text.slice(start);
}
take(pending + decoder.end());
process.stdout.write(JSON.stringify({ records, bytes }));
