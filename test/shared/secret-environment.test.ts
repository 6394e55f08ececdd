import { describe, expect, it } from 'vitest';
import { registerSecretsOfEnvironment, scrubSecrets } from '../../src/shared/secrets.js';

describe('secrets of the environment', () => {
  it('scrubs the values of chatport and AWS variables whose names look secret, and only those', () => {
    registerSecretsOfEnvironment({
      AWS_SECRET_ACCESS_KEY: 'aws-secret-value-123',
      AWS_SESSION_TOKEN: 'session-token-value-456',
      CHATPORT_CLIENT_SECRET: 'client-secret-value-789',
      AWS_REGION: 'eu-central-1',
      SOME_TOOL_TOKEN_CACHE: 'enabled',
    });
    const text = 'SignatureDoesNotMatch for aws-secret-value-123 / session-token-value-456 / client-secret-value-789 in eu-central-1, cache enabled';
    expect(scrubSecrets(text)).toBe('SignatureDoesNotMatch for [REDACTED] / [REDACTED] / [REDACTED] in eu-central-1, cache enabled');
  });
});
