import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { isChatportError } from '../../src/shared/errors.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';

/** A library caller's client options with a URL that is none: a configuration error (78), as the CLI says it, not a bug (1). */
function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('createClient with a URL that is not an http(s) URL', () => {
  it('an apiUrl: ConfigError naming the option and the value', () => {
    const error = thrown(() => createClient({ apiUrl: 'chat.example.com/api', auth: { kind: 'static', accessToken: 'static-token-value' } }));
    expect(isChatportError(error) && error.code).toBe('CONFIG_INVALID');
    expect(exitCodeFor(error)).toBe(ExitCode.CONFIG);
    expect((error as Error).message).toBe('API URL "chat.example.com/api" (from the client\'s apiUrl) is not an http(s) URL');
  });

  it("a client-credentials tokenUrl: refused at once, not at the first call as a TypeError", () => {
    const auth = { kind: 'client-credentials' as const, tokenUrl: 'ftp://chat.example.com/oauth/token', clientId: 'id', clientSecret: 'client-secret-value' };
    const error = thrown(() => createClient({ apiUrl: 'https://chat.example.com/api', auth }));
    expect(exitCodeFor(error)).toBe(ExitCode.CONFIG);
    expect((error as Error).message).toBe('token URL "ftp://chat.example.com/oauth/token" (from the client\'s auth.tokenUrl) is not an http(s) URL');
  });
});
