// Runs a module as if it were the main program, and on exit reports its own resource usage on stderr
// (one line, prefixed), so the parent measures exactly this process: CPU seconds, peak RSS, and the most
// heap in use after a full GC.
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { getHeapSpaceStatistics } from 'node:v8';

// The old generation in use just after each full (mark-compact) GC: the data the process keeps, as opposed
// to peak RSS, which also holds garbage V8's heap sizing lets pile up between full GCs. The young generation
// is left out: it is collected separately and holds whatever was allocated last, up to tens of MB. The
// maximum over a run shows whether what the process keeps grows with the input.
const oldGenerationUsed = () => getHeapSpaceStatistics().reduce((n, s) => (s.space_name.startsWith('new_') ? n : n + s.space_used_size), 0);
let liveMaxBytes = 0;
let majorGcs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries())
    if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
      majorGcs++;
      liveMaxBytes = Math.max(liveMaxBytes, oldGenerationUsed());
    }
}).observe({ entryTypes: ['gc'] });

const [script, ...args] = process.argv.slice(2);
process.argv = [process.argv[0], script, ...args];
// RSS sampled twice a second, so a report can show memory over the course of the run (flat, or climbing).
const rssSamples = [];
setInterval(() => rssSamples.push(process.memoryUsage.rss()), 500).unref();

/** The highest RSS sampled in each quarter of the run, in MB; null for a quarter without a sample (a short run). */
function rssByQuarter() {
  const quarters = [null, null, null, null];
  rssSamples.forEach((rss, i) => {
    const q = Math.min(3, Math.floor((i * 4) / rssSamples.length));
    quarters[q] = Math.max(quarters[q] ?? 0, Math.round(rss / 2 ** 20));
  });
  return quarters;
}

process.on('exit', () => {
  rssSamples.push(process.memoryUsage.rss());
  const u = process.resourceUsage();
  process.stderr.write(`\n@@usage ${JSON.stringify({ userCpuMs: u.userCPUTime / 1000, sysCpuMs: u.systemCPUTime / 1000, maxRssKb: u.maxRSS, liveHeapMaxKb: Math.round(liveMaxBytes / 1024), majorGcs, rssByQuarterMb: rssByQuarter() })}\n`);
});
await import(pathToFileURL(script).href);
