import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimStateFolder, stateOwnerFile } from '../../src/pipeline/state/state-owner.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';

const folder = () => mkdtemp(join(tmpdir(), 'chatport-owner-'));
const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);

describe('claimStateFolder', () => {
  it('writes the owner on first use and keeps the id when only the name changes', async () => {
    const dir = await folder();
    await claimStateFolder(dir, { id: 'crm', name: 'crm' }, undefined);
    await claimStateFolder(dir, { id: 'crm', name: 'crm-2024' }, 'crm');
    expect(JSON.parse(await readFile(stateOwnerFile(dir), 'utf8'))).toEqual({ id: 'crm', name: 'crm-2024' });
  });

  it('refuses another id, saying how a renamed pipeline keeps its identity', async () => {
    const dir = await folder();
    await claimStateFolder(dir, { id: 'crm', name: 'crm-2024' }, undefined);
    const error = await failure(claimStateFolder(dir, { id: 'crm-2024', name: 'crm-2024' }, undefined));
    expect(error).toMatchObject({ code: 'STATE_FOREIGN', details: { owner: 'crm', pipeline: 'crm-2024' } });
    expect((error as Error).message).toContain('belongs to pipeline "crm-2024" (id "crm")');
    expect((error as Error).message).toContain('add `id: crm` to the pipeline file');
    expect(exitCodeFor(error)).toBe(ExitCode.CONFIG);
  });

  it('takes a folder without pipeline.json (older versions) to belong to the pipeline its journal names, by id or name', async () => {
    const dir = await folder();
    expect(await failure(claimStateFolder(dir, { id: 'new', name: 'new' }, 'old'))).toMatchObject({ code: 'STATE_FOREIGN', details: { owner: 'old' } });
    await claimStateFolder(dir, { id: 'given-id', name: 'old' }, 'old');
    expect(JSON.parse(await readFile(stateOwnerFile(dir), 'utf8'))).toEqual({ id: 'given-id', name: 'old' });
  });

  it('refuses an owner file it cannot read instead of claiming the folder again', async () => {
    const dir = await folder();
    await writeFile(stateOwnerFile(dir), '{"name": 3}');
    const error = await failure(claimStateFolder(dir, { id: 'crm', name: 'crm' }, undefined));
    expect(error).toMatchObject({ code: 'CONFIG_STATE_OWNER' });
    expect(exitCodeFor(error)).toBe(ExitCode.CONFIG);
  });
});
