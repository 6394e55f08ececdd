import { growSmallHeapFreely, keepHeapSmall } from '../shared/heap-sizing.js';
import { commandNameOf } from './command-name.js';

// Imported first by main.ts: the young generation grows while the other modules load, and V8 does not
// shrink it back, so the long client runs size their heap before anything else, and the sandbox lets its
// small heap grow (src/shared/heap-sizing.ts).
const command = commandNameOf(process.argv);
if (command === 'import' || command === 'migrate') keepHeapSmall();
else if (command === 'sandbox') growSmallHeapFreely();
