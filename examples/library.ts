// chatport as a library: read a pipeline file, import it, verify the platform against it, read the report.
// Run with CHATPORT_API_URL, CHATPORT_CLIENT_ID and CHATPORT_CLIENT_SECRET set (`chatport sandbox --print-env`).
// It reads the bundled pipelines/csv-example.yaml: run it in chatport's folder (a checkout, or node_modules/chatport).
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createClient, formatReportTable, resolvePipelineConfig, runImport, type RunReport } from 'chatport';

const env = (name: string): string => process.env[name] ?? `${name} is not set`;

const path = resolve('pipelines/csv-example.yaml');
const resolved = resolvePipelineConfig(await readFile(path, 'utf8'), { env: process.env, path });
if (!resolved.ok) throw new Error(resolved.errors.map((e) => `${path}:${e.line ?? ''} ${e.path}: ${e.message}`).join('\n'));

const apiUrl = env('CHATPORT_API_URL');
const client = createClient({
  apiUrl,
  auth: { kind: 'client-credentials', tokenUrl: new URL('/oauth/token', apiUrl).href, clientId: env('CHATPORT_CLIENT_ID'), clientSecret: env('CHATPORT_CLIENT_SECRET') },
});
try {
  const report: RunReport = await runImport(
    { config: resolved.config, stateDir: await mkdtemp(join(tmpdir(), 'chatport-library-')), verify: {} },
    { client },
  );
  process.stdout.write(formatReportTable(report));
  const { read, imported, rejected, skipped } = report.totals;
  console.log(`status ${report.status}: read ${read}, imported ${imported}, rejected ${rejected}, skipped ${skipped}`);
  console.log(`verification: ${report.verification?.status ?? 'not run'}; rejects in ${report.rejectsFile ?? '(none)'}`);
} finally {
  await client.close();
}
