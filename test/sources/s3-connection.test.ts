import { describe, expect, it } from 'vitest';
import { homeForSdk, parseS3Url, resolveS3Connection } from '../../src/shared/s3-location.js';

describe('S3 connection settings', () => {
  it('uses WHEN_REQUIRED checksums, path style and a fallback region for custom endpoints', () => {
    expect(resolveS3Connection({ endpoint: 'http://127.0.0.1:9000' }, {})).toEqual({
      endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', forcePathStyle: true, checksums: 'WHEN_REQUIRED', credentials: undefined,
    });
    expect(resolveS3Connection({ endpoint: 'http://minio:9000' }, { AWS_REGION: 'eu-west-1' }).region).toBeUndefined();
  });

  it("leaves AWS itself to the SDK's chains and defaults", () => {
    expect(resolveS3Connection({}, {})).toEqual({ endpoint: undefined, region: undefined, forcePathStyle: false, checksums: 'WHEN_SUPPORTED', credentials: undefined });
    expect(resolveS3Connection({ endpoint: 'http://x', checksums: 'WHEN_SUPPORTED', forcePathStyle: false }, {})).toMatchObject({ checksums: 'WHEN_SUPPORTED', forcePathStyle: false });
  });

  it('parses s3:// URLs and names a bad one', () => {
    expect(parseS3Url('s3://bucket/a/b.csv')).toEqual({ bucket: 'bucket', key: 'a/b.csv' });
    expect(parseS3Url('s3://bucket')).toEqual({ bucket: 'bucket', key: '' });
    expect(() => parseS3Url('s3:///key')).toThrow('not an S3 URL: "s3:///key"');
  });

  // A container run as an arbitrary UID (no passwd entry) with no HOME: the SDK's profile lookup asks the
  // OS for a home folder, which throws, uncaught, and the job died with exit 1 and Node's raw stack.
  it('gives the SDK a home folder where the OS has none, and leaves one that exists alone', () => {
    const noPasswdEntry = () => {
      throw new Error('A system error occurred: uv_os_homedir returned ENOENT (no such file or directory)');
    };
    const env: Record<string, string | undefined> = {};
    homeForSdk(env, noPasswdEntry);
    expect(env.HOME).toBe('/nonexistent');
    const withHome: Record<string, string | undefined> = { HOME: '/home/app' };
    homeForSdk(withHome, noPasswdEntry);
    expect(withHome.HOME).toBe('/home/app');
    const withPasswd: Record<string, string | undefined> = {};
    homeForSdk(withPasswd, () => '/root');
    expect(withPasswd.HOME).toBeUndefined();
  });
});
