import { keepHeapSmall } from '../shared/heap-sizing.js';

// Imported first by main.ts: the young generation grows while the other modules load, and V8 does not
// shrink it back, so the long client runs size their heap before anything else (src/shared/heap-sizing.ts).
const command = process.argv.slice(2).find((arg) => !arg.startsWith('-'));
if (command === 'import' || command === 'migrate') keepHeapSmall();
