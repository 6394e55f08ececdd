import { describe, expect, it } from 'vitest';
import { registerSecretsOfEnvironment, scrubSecrets } from '../../src/shared/secrets.js';
import { runCli } from '../import/support.js';

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

  it('keeps the addresses and files that secret-named variables point at (token URL, token and credentials files), which are no secrets', () => {
    const locations = {
      CHATPORT_TOKEN_URL: 'https://auth.example.com/oauth/token',
      CHAT_TOKEN_URL: 'https://old-auth.example.com/oauth/token',
      AWS_WEB_IDENTITY_TOKEN_FILE: '/var/run/secrets/eks.amazonaws.com/serviceaccount/token',
      AWS_SHARED_CREDENTIALS_FILE: '/home/ci/.aws/credentials',
      AWS_CONTAINER_CREDENTIALS_FULL_URI: 'http://169.254.170.23/v1/credentials',
      AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: '/var/run/secrets/pods.eks.amazonaws.com/serviceaccount/eks-pod-identity-token',
    };
    registerSecretsOfEnvironment(locations);
    const text = Object.values(locations).join(' | ');
    expect(scrubSecrets(text)).toBe(text);
  });

  it('a CLI error names the token URL of CHATPORT_TOKEN_URL it could not use', async () => {
    const run = await runCli(['api', 'GET', '/users'], {
      CHATPORT_API_URL: 'http://127.0.0.1:9/api',
      CHATPORT_TOKEN_URL: 'ftp://auth.example.com/oauth/token',
      CHATPORT_CLIENT_ID: 'client-id',
      CHATPORT_CLIENT_SECRET: 'client-secret-value',
      CHATPORT_ACCESS_TOKEN: undefined,
    });
    expect(run.stderr).toMatch(/token URL \\?"ftp:\/\/auth\.example\.com\/oauth\/token\\?" \(from CHATPORT_TOKEN_URL\) is not an http\(s\) URL/);
    expect(run.stderr).not.toContain('[REDACTED]');
    expect(run.code).toBe(78);
  });
});
