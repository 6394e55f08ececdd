#!/usr/bin/env node
// The heap is sized before the rest of the CLI loads: loading it grows the young generation, which V8
// never gives back (src/shared/heap-sizing.ts).
import './heap-first.js';

const { runCli } = await import('./run-cli.js');
await runCli();
