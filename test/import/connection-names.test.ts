import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCsvs, runCli, startImportFixture, writeInput, type ImportFixture, writeCsvs } from './support.js';
import { generatedPipelineYaml } from '../../fixtures/csv-generated/pipeline.js';

const EXAMPLE = join(import.meta.dirname, '../../pipelines/csv-example.yaml');

let f: ImportFixture;
let deadUrl: string;
beforeAll(async () => {
  f = await startImportFixture();
  deadUrl = await unusedPortUrl();
});
afterAll(() => f.close());

/** A URL on a port nothing listens on: a request sent there fails at once. */
async function unusedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** No connection variable of either name from the test's own environment. */
const cleared = Object.fromEntries(
  ['API_URL', 'TOKEN_URL', 'CLIENT_ID', 'CLIENT_SECRET', 'ACCESS_TOKEN', 'API_PATH_PREFIX'].flatMap((v) => [[`CHATPORT_${v}`, undefined], [`CHAT_${v}`, undefined]]),
);
const credentials = () => ({ CHATPORT_CLIENT_ID: f.sandbox.credentials.clientId, CHATPORT_CLIENT_SECRET: f.sandbox.credentials.clientSecret });
const warningsIn = (stderr: string) => stderr.split('\n').filter((line) => line.includes('old environment variable name'));

describe('connection settings: CHATPORT_* names, the CHAT_* names of wave 1, --api-url', () => {
  it('the bundled pipeline imports with the old CHAT_* names alone, with one warning naming each new name', async () => {
    const env = { ...cleared, CHAT_API_URL: f.sandbox.url, CHAT_CLIENT_ID: f.sandbox.credentials.clientId, CHAT_CLIENT_SECRET: f.sandbox.credentials.clientSecret };
    const result = await runCli(['import', EXAMPLE, '--state', join(f.dir, 'old-names')], env);
    expect(result.code, result.stderr).toBe(2); // completed with the example's deliberate rejects
    const warnings = warningsIn(result.stderr);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('CHAT_API_URL → CHATPORT_API_URL');
    expect(warnings[0]).toContain('CHAT_CLIENT_ID → CHATPORT_CLIENT_ID');
    expect(warnings[0]).not.toContain(f.sandbox.credentials.clientSecret);
  });

  // A container configured by environment alone: a typo in a variable's name must not pass unnoticed.
  it('a misspelt CHATPORT_* name is reported with the name meant; variables pipeline files interpolate are not', async () => {
    const env = { ...cleared, CHATPORT_API_ULR: f.sandbox.url, ...credentials(), CHATPORT_TERMINATON_LOG: '/tmp/x', CHATPORT_CHUNK_RECORDS: '50' };
    const result = await runCli(['ping'], env);
    expect(result.code, result.stderr).toBe(78);
    const warnings = result.stderr.split('\n').filter((line) => line.includes('not a variable chatport reads'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('CHATPORT_API_ULR (did you mean CHATPORT_API_URL?)');
    expect(warnings[0]).toContain('CHATPORT_TERMINATON_LOG (did you mean CHATPORT_TERMINATION_LOG?)');
    expect(warnings[0]).not.toContain('CHATPORT_CHUNK_RECORDS');
    expect(result.stderr).not.toContain(f.sandbox.credentials.clientSecret);
  });

  it('the new names win over the old ones, without a warning', async () => {
    const env = { ...cleared, CHATPORT_API_URL: f.sandbox.url, ...credentials(), CHAT_API_URL: deadUrl, CHAT_CLIENT_SECRET: 'not-the-secret' };
    const result = await runCli(['ping'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(warningsIn(result.stderr)).toEqual([]);
  });

  it('--api-url alone sends the token request to that origin, not to CHATPORT_TOKEN_URL of the environment', async () => {
    const env = { ...cleared, ...credentials(), CHATPORT_API_URL: deadUrl, CHATPORT_TOKEN_URL: `${deadUrl}/oauth/token` };
    const result = await runCli(['ping', '--api-url', f.sandbox.url], env);
    expect(result.code, result.stderr).toBe(0);
  });

  it('--api-url alone imports the bundled pipeline with only the client id and secret in the environment', async () => {
    const result = await runCli(['import', EXAMPLE, '--api-url', f.sandbox.url, '--state', join(f.dir, 'api-url-only')], { ...cleared, ...credentials() });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toMatch(/^total\s+26\s+16\s/m);
  });

  it("--api-url wins over a pipeline file's api block, token URL included", async () => {
    const csv = generateCsvs({ users: 2, channels: 1, messages: 3 }, 'apiflag-');
    await writeCsvs(join(f.dir, 'apiflag'), csv);
    const api = `api:\n  url: ${deadUrl}\n  tokenUrl: ${deadUrl}/oauth/token\n  clientId: \${CHATPORT_CLIENT_ID}\n  clientSecret: \${CHATPORT_CLIENT_SECRET}\n`;
    const path = await writeInput(join(f.dir, 'apiflag'), 'pipeline.yaml', api + generatedPipelineYaml({ name: 'apiflag', options: 'chunkRecords: 50' }));
    const result = await runCli(['import', path, '--api-url', f.sandbox.url, '--state', join(f.dir, 'apiflag', 'state')], { ...cleared, ...credentials() });
    expect(result.code, result.stderr).toBe(0);
  });
});
