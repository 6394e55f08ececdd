// Runs a module as if it were the main program, and on exit reports its own resource usage on stderr
// (one line, prefixed), so the parent measures exactly this process: CPU seconds and peak RSS.
import { pathToFileURL } from 'node:url';

const [script, ...args] = process.argv.slice(2);
process.argv = [process.argv[0], script, ...args];
process.on('exit', () => {
  const u = process.resourceUsage();
  process.stderr.write(`\n@@usage ${JSON.stringify({ userCpuMs: u.userCPUTime / 1000, sysCpuMs: u.systemCPUTime / 1000, maxRssKb: u.maxRSS })}\n`);
});
await import(pathToFileURL(script).href);
