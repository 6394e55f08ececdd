import { describe, expect, it } from 'vitest';
import { describeFailure, jsonText } from '../../src/cli/failure.js';
import { failureSummary } from '../../src/cli/commands/export-termination-log.js';
import { reportedError } from '../../src/pipeline/report.js';
import { registerSecret } from '../../src/shared/secrets.js';

/** What a dependency or a mapping function may throw: no Error, just an object with facts in it. */
const thrown = () => ({ code: 'X_FAILED', status: 503, detail: { retry: false, apiKey: 'k-123456789' }, note: 'called with s3cr3t-value-42' });

describe('a thrown object that is no Error', () => {
  registerSecret('s3cr3t-value-42');
  const said = 'a thrown object, not an Error: {"code":"X_FAILED","status":503,"detail":{"retry":false,"apiKey":"[REDACTED]"},"note":"called with [REDACTED]"}';

  it('is reported by its properties, secrets scrubbed, not as [object Object]', () => {
    const out = describeFailure(thrown(), { debug: false });
    expect(out.text).toBe(`chatport: internal error: ${said} — this is a bug in chatport; please report it with the lines above\n`);
    expect(jsonText(out)).toContain(JSON.stringify(said).slice(1, -1));
    expect(reportedError(thrown()).message).toBe(said);
    expect(failureSummary(thrown(), {}, [])).toMatchObject({ error: { message: said } });
  });

  it('one with a message of its own is still said by all its properties, in report.json as on stderr', () => {
    const withMessage = { message: 'quota', code: 'Q' };
    expect(reportedError(withMessage).message).toBe('a thrown object, not an Error: {"message":"quota","code":"Q"}');
    expect(describeFailure(withMessage, { debug: false }).text).toContain('a thrown object, not an Error: {"message":"quota","code":"Q"}');
  });

  it('a string or number thrown is said as it is', () => {
    expect(describeFailure('boom', { debug: false }).text).toMatch(/^chatport: internal error: boom — /);
    expect(reportedError(42).message).toBe('42');
  });
});
