import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Router } from '../../src/sandbox/router.js';
import { SANDBOX_ROUTES } from '../../src/sandbox/routes/index.js';

/**
 * Every operation the API description and decisions.md name, read from their tables, has a route in the
 * sandbox (its method and path). A new operation in either page makes this test fail until it is served;
 * each route's behaviour is tested in its own file.
 */
const SPEC = join(import.meta.dirname, '../../../shared/spec');

function operations(): Array<{ method: string; path: string }> {
  const out = new Map<string, { method: string; path: string }>();
  const add = (method: string, path: string) => out.set(`${method} ${path}`, { method, path });
  for (const file of ['management-api.md', 'decisions.md']) {
    for (const line of readFileSync(join(SPEC, file), 'utf8').split('\n')) {
      // `| GET | /users/{id} | …` (management-api.md §4) and `| … | \`POST /threads/{id}/messages\` … |` (decisions.md).
      const cells = line.split('|').map((c) => c.trim());
      if (/^(GET|HEAD|POST|PUT|PATCH|DELETE)$/.test(cells[1] ?? '') && (cells[2] ?? '').startsWith('/')) add(cells[1]!, cells[2]!);
      for (const m of line.matchAll(/`(GET|HEAD|POST|PUT|PATCH|DELETE) (\/[^\s`?]+)[^`]*`/g)) add(m[1]!, m[2]!);
    }
  }
  return [...out.values()];
}

/** A concrete path: every `{param}` becomes an id. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, '1');

const router = new Router().add(...SANDBOX_ROUTES);

describe('operation coverage', () => {
  const ops = operations();

  it("reads every operation of both pages (the description's 69 with decisions.md's and the /_sandbox/ surface)", () => {
    expect(ops.length).toBeGreaterThanOrEqual(69);
  });

  it.each(ops.map((o) => [`${o.method} ${o.path}`, o] as const))('%s has a route', (_name, op) => {
    expect(router.match(op.method, concrete(op.path)).kind).toBe('found');
  });
});
