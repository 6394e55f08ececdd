import { describe, expect, it } from 'vitest';
import { parseS3Url, resolveS3Connection } from '../../src/shared/s3-location.js';

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
});
