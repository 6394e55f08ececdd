import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolvePipelineConfig } from '../../src/config/index.js';
import type { ConfigIssue } from '../../src/config/index.js';

const GOOD = `
name: demo
api:
  url: \${API_URL:-http://127.0.0.1:8787}
  clientId: \${CLIENT_ID}
  clientSecret: \${CLIENT_SECRET}
options:
  chunkRecords: \${CHUNK:-250}
stages:
  messages:
    source: { path: data/messages.csv.gz }
    key: id
    channel: channel
    options: { concurrency: 8 }
    mapping:
      type: { const: TEXT }
      body: text
      user: author
  users:
    source:
      path: [ s3://bucket/users/, /abs/users.ndjson ]
      format: ndjson
    key: id
    mapping:
      name: login
      displayName: { template: "{first} {last}" }
      isGuest: { field: guest, type: boolean, default: false }
`;

const env = { CLIENT_ID: 'cid', CLIENT_SECRET: 's3cret' };

function errorsOf(text: string, options = {}): ConfigIssue[] {
  const result = resolvePipelineConfig(text, { env, path: '/p/x.yaml', ...options });
  if (result.ok) throw new Error('expected errors');
  return result.errors;
}

describe('resolvePipelineConfig', () => {
  it('resolves a good file: interpolation, typed numbers, defaults, stage order, paths relative to the file', () => {
    const result = resolvePipelineConfig(GOOD, { env, path: '/work/pipes/demo.yaml' });
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const { config } = result;
    // Members and messages without a channels stage can only use channels imported earlier: worth a warning.
    expect(result.warnings).toEqual([expect.objectContaining({ path: 'stages', line: 10 })]);
    expect(config.api).toEqual({ url: 'http://127.0.0.1:8787', tokenUrl: 'http://127.0.0.1:8787/oauth/token', clientId: 'cid', clientSecret: 's3cret', pathPrefix: '' });
    expect(config.state).toBe('.chatport/demo');
    expect(config.baseDir).toBe('/work/pipes');
    expect(config.stages.map((s) => s.stage)).toEqual(['users', 'messages']);
    const [users, messages] = config.stages;
    expect(users!.source).toEqual({
      paths: ['s3://bucket/users/', '/abs/users.ndjson'],
      format: 'ndjson',
      gzip: 'auto',
      encoding: 'utf-8',
      csv: { header: true, delimiter: ',', quote: '"', bom: true },
    });
    expect(messages!.source.paths).toEqual([join('/work/pipes', 'data/messages.csv.gz')]);
    expect(users!.options).toEqual({ chunkRecords: 250, chunkBytes: 1_048_576, concurrency: 4, lanes: 8, duplicates: 'reject', mode: 'insert', threads: 'replies', longBodies: 'reject' });
    expect(messages!.options).toEqual({ chunkRecords: 250, chunkBytes: 1_048_576, concurrency: 8, lanes: 8, duplicates: 'reject', mode: 'insert', threads: 'replies', longBodies: 'reject' });
    expect(messages!.channel).toBe('channel');
    expect(users!.skip).toEqual([]);
  });

  it('refuses a key holding ${…}: keys are never interpolated, so a value map would match only that text', () => {
    const text = GOOD.replace('      type: { const: TEXT }\n', '      type: { field: kind, map: { "${TEXT_CODE}": TEXT } }\n');
    expect(errorsOf(text, { env: { ...env, TEXT_CODE: 't' } })).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/keys are not interpolated, so "\$\{TEXT_CODE\}" would be taken as it is written/) }),
    ]);
  });

  it('names the exact path and line of a missing required mapping field', () => {
    const text = GOOD.replace('      body: text\n', '');
    const errors = errorsOf(text);
    expect(errors).toEqual([
      expect.objectContaining({ path: 'stages.messages.mapping.body', message: 'stages.messages.mapping.body: required: every messages item needs body', line: 16 }),
    ]);
  });

  it('names paths, expectations and lines of schema errors', () => {
    const text = GOOD.replace('format: ndjson', 'format: xml').replace('key: id\n    channel', 'key: 5\n    channel').replace('concurrency: 8', 'concurrency: 0, chunkSize: 3');
    const errors = errorsOf(text);
    const byPath = Object.fromEntries(errors.map((e) => [e.path, e]));
    expect(Object.keys(byPath).sort()).toEqual(['stages.messages.key', 'stages.messages.options.chunkSize', 'stages.messages.options.concurrency', 'stages.users.source.format']);
    expect(byPath['stages.users.source.format']).toMatchObject({ expected: 'one of "csv", "ndjson", "json"', line: 22 });
    expect(byPath['stages.messages.options.concurrency']).toMatchObject({ expected: 'at least 1' });
    expect(byPath['stages.messages.options.chunkSize']!.message).toMatch(/unknown field "chunkSize"/);
    expect(byPath['stages.messages.key']!.message).toMatch(/expected text, found number 5/);
  });

  it('suggests the field an unknown one most likely meant, from the fields allowed where it is written', () => {
    const text = GOOD.replace('concurrency: 8', 'concurrency: 8, chunkRecord: 10').replace('format: ndjson', 'fromat: ndjson');
    const byPath = Object.fromEntries(errorsOf(text).map((e) => [e.path, e]));
    expect(byPath['stages.messages.options.chunkRecord']!.message).toBe('stages.messages.options.chunkRecord: unknown field "chunkRecord"; did you mean "chunkRecords"?');
    expect(byPath['stages.users.source.fromat']!.message).toBe('stages.users.source.fromat: unknown field "fromat"; did you mean "format"?');
    // Nothing near it: no guess.
    const far = errorsOf(GOOD.replace('concurrency: 8', 'concurrency: 8, parallelism: 2'));
    expect(far).toEqual([expect.objectContaining({ path: 'stages.messages.options.parallelism', message: 'stages.messages.options.parallelism: unknown field "parallelism"' })]);
  });

  it('picks the meant branch of a mapping value and names the nested path', () => {
    const errors = errorsOf(GOOD.replace('type: boolean, default: false', 'type: bool, default: false'));
    expect(errors).toEqual([expect.objectContaining({ path: 'stages.users.mapping.isGuest.type', expected: expect.stringContaining('"boolean"') as unknown })]);
  });

  it('refuses a rule whose mistake leaves only text values, instead of reading it as a nested mapping that fails on the first record', () => {
    // { field: guest, type: bool } also reads as a nested mapping of two renames; the mapping compiler takes
    // any object with `field` as a field rule, so it passed here and stopped the run as "a corrupt file".
    const typo = errorsOf(GOOD.replace('type: boolean, default: false', 'type: bool'));
    expect(typo).toEqual([expect.objectContaining({ path: 'stages.users.mapping.isGuest.type', expected: expect.stringContaining('"boolean"') as unknown, line: 27 })]);
    const template = errorsOf(GOOD.replace('{ template: "{first} {last}" }', '{ template: "{first} {last}", type: text }'));
    expect(template).toEqual([expect.objectContaining({ path: 'stages.users.mapping.displayName.type', line: 26 })]);
  });

  it('refuses a default its field\'s type cannot take, the message led by the path in the file', () => {
    const errors = errorsOf(GOOD.replace('type: boolean, default: false', 'type: boolean, default: maybe'));
    expect(errors).toEqual([
      expect.objectContaining({ path: 'stages.users.mapping.isGuest.default', message: expect.stringMatching(/^stages\.users\.mapping\.isGuest\.default: expected a boolean .*found "maybe"$/) as unknown }),
    ]);
  });

  it('reports mappings that do not compile with their path', () => {
    const errors = errorsOf(GOOD.replace('"{first} {last}"', '"{first"'));
    expect(errors).toEqual([expect.objectContaining({ path: 'stages.users.mapping.displayName' })]);
    const skip = errorsOf(GOOD.replace('    key: id\n    mapping:\n      name', '    key: id\n    skip: [ { field: a, matches: "(" } ]\n    mapping:\n      name'));
    expect(skip).toEqual([expect.objectContaining({ path: 'stages.users.skip.0.matches' })]);
    expect(errorsOf(GOOD.replace('    channel: channel\n', ''))).toEqual([expect.objectContaining({ path: 'stages.messages.channel' })]);
  });

  it('reports unset variables as errors at their path, or as warnings with missingEnv "warn" (dropping api)', () => {
    const errors = errorsOf(GOOD, { env: {} });
    expect(errors.map((e) => e.path)).toEqual(['api.clientId', 'api.clientSecret']);
    expect(errors[0]!.message).toMatch(/CLIENT_ID is not set/);
    const lenient = resolvePipelineConfig(GOOD, { env: {}, missingEnv: 'warn' });
    expect(lenient.ok).toBe(true);
    if (lenient.ok) {
      expect(lenient.config.api).toBeUndefined();
      expect(lenient.warnings.map((w) => w.path)).toContain('api.clientSecret');
    }
  });

  it('keeps quoted interpolations as text and types plain ones', () => {
    const result = resolvePipelineConfig(GOOD.replace('chunkRecords: ${CHUNK:-250}', 'chunkRecords: "${CHUNK:-250}"'), { env });
    expect(result.ok ? [] : result.errors.map((e) => e.path)).toEqual(['options.chunkRecords']);
  });

  it('types a plain interpolation with leading zeros as YAML reads the same text written in the file (0250 is 250)', () => {
    const zeros = resolvePipelineConfig(GOOD, { env: { ...env, CHUNK: '0250' } });
    expect(zeros.ok && zeros.config.stages[0]!.options.chunkRecords).toBe(250);
    // -07 is the number -7: a configuration error at its path, not a crash.
    expect(errorsOf(GOOD, { env: { ...env, CHUNK: '-07' } }).map((e) => e.path)).toEqual(['options.chunkRecords']);
  });

  it('keeps value-map keys and condition values, interpolated ones too, as the text written (not YAML numbers)', () => {
    const text = GOOD.replace('      user: author\n', `      user: author
    skip:
      - { field: kind, equals: 007 }
      - field: tier
        in:
          - 1.50
          - \${TIER}
      - field: code
        notEquals: \${TIER}
`).replace('displayName: { template: "{first} {last}" }', 'displayName: { field: d, map: { 01: a, 0x1F: b } }');
    const result = resolvePipelineConfig(text, { env: { ...env, TIER: '2.50' } });
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const [users, messages] = result.config.stages;
    expect(messages!.skip).toEqual([{ field: 'kind', equals: '007' }, { field: 'tier', in: ['1.50', '2.50'] }, { field: 'code', notEquals: '2.50' }]);
    expect(users!.mapping.displayName).toEqual({ field: 'd', map: { '01': 'a', '0x1F': 'b' } });
  });

  it('refuses a condition compared with null (YAML null or ~), pointing to empty: the text "null" only when quoted', () => {
    const withSkip = (rule: string) => GOOD.replace('      user: author\n', `      user: author\n    skip:\n      - ${rule}\n`);
    for (const rule of ['{ field: kind, equals: null }', '{ field: kind, notEquals: ~ }', '{ field: kind, in: [a, null] }', '{ field: kind, notIn: [Null] }']) {
      const [error, ...more] = errorsOf(withSkip(rule));
      expect(more).toEqual([]);
      expect(error!.path).toMatch(/^stages\.messages\.skip\.0\.(equals|notEquals|in|notIn)$/);
      expect(error!.message).toContain('a value is compared as text, and null is none: for a missing, null or empty value write `empty: true` (`empty: false` for a present one); for the text "null", quote it');
    }
    const quoted = resolvePipelineConfig(withSkip(`{ field: kind, equals: 'null' }`), { env });
    expect(quoted.ok && quoted.config.stages.find((st) => st.stage === 'messages')!.skip).toEqual([{ field: 'kind', equals: 'null' }]);
  });

  it('warns about a secret written into the file', () => {
    const result = resolvePipelineConfig(GOOD.replace('${CLIENT_SECRET}', 'plain-secret'), { env });
    expect(result.ok && result.warnings.map((w) => w.path)).toEqual(['api.clientSecret', 'stages']);
    expect(JSON.stringify(result.warnings)).not.toContain('plain-secret');
    const wrong = errorsOf(GOOD.replace('clientSecret: ${CLIENT_SECRET}', 'clientSecret: [hunter2]'));
    expect(wrong).toEqual([expect.objectContaining({ path: 'api.clientSecret' })]);
    expect(JSON.stringify(wrong)).not.toContain('hunter2');
  });

  it('reports YAML syntax errors with their line, and files without stages', () => {
    expect(errorsOf('name: x\nstages: [\n')[0]).toMatchObject({ path: '', line: expect.any(Number) as unknown });
    expect(errorsOf('name: x\nname: y\nstages: {}\n')[0]!.message).toMatch(/YAML/);
    expect(errorsOf('name: x\nstages: {}\n')).toEqual([expect.objectContaining({ path: 'stages', message: expect.stringMatching(/at least one/) as unknown })]);
    expect(errorsOf('- a\n')[0]!.message).toMatch(/mapping/);
    expect(errorsOf('stages: {}\n')[0]).toMatchObject({ path: 'name', message: 'name: required (text)' });
  });
});
