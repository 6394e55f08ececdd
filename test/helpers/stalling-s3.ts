/**
 * An S3 stand-in on 127.0.0.1 for stop tests: it answers the start of a publication and never answers a
 * data upload, so a test can stop a run while an upload waits, with no wall-clock race.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Resolves once `condition` holds (checked every 5 ms), or rejects when `signal` aborts: no wall-clock race. */
export function once(condition: () => boolean, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (signal?.aborted) reject(signal.reason);
      else if (condition()) resolve();
      else return;
      clearInterval(timer);
    }, 5);
  });
}

/**
 * A store that answers the start of a publication (an empty folder with an old `_SUCCESS`) and of a
 * multipart upload, and never answers a data upload or part; the cleanup's requests (AbortMultipartUpload,
 * DeleteObjects, the `_SUCCESS` put back) are answered or not.
 */
export async function startStallingStore(bucket: string, answerCleanup: boolean) {
  const seen: string[] = [];
  const server = createServer((request, response) => {
    const url = decodeURIComponent(request.url ?? '').replace(/\?x-id=\w+$/, '');
    seen.push(`${request.method} ${url}`);
    request.resume();
    if (request.method === 'GET' && url.includes('list-type=2')) {
      response.writeHead(200, { 'content-type': 'application/xml' });
      response.end(`<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><KeyCount>0</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated></ListBucketResult>`);
    } else if (request.method === 'GET') {
      // A manifest read (the export's format check): none yet.
      response.writeHead(404, { 'content-type': 'application/xml' });
      response.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>');
    } else if (request.method === 'POST' && url.includes('?uploads')) {
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/xml' }).end(`<?xml version="1.0" encoding="UTF-8"?><InitiateMultipartUploadResult><Bucket>${bucket}</Bucket><Key>k</Key><UploadId>u1</UploadId></InitiateMultipartUploadResult>`));
    } else if (request.method === 'DELETE' && url.includes('uploadId=')) {
      // AbortMultipartUpload: the cleanup's.
      if (answerCleanup) response.writeHead(204).end();
    } else if (request.method === 'HEAD' || request.method === 'DELETE') {
      response.writeHead(request.method === 'HEAD' ? 200 : 204, { 'content-length': '0' }).end();
    } else if (answerCleanup && request.method === 'POST' && url.includes('?delete')) {
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/xml' }).end('<?xml version="1.0" encoding="UTF-8"?><DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"></DeleteResult>'));
    } else if (answerCleanup && request.method === 'PUT' && url.endsWith('/_SUCCESS')) {
      response.writeHead(200, { etag: '"e"', 'content-length': '0' }).end();
    }
    // Anything else (the data upload) gets no answer at all.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    seen,
    /** A data file's upload has arrived (and waits for an answer). */
    uploading: () => seen.some((r) => r.startsWith('PUT ') && r.includes('/part-')),
    /** The cleanup's DeleteObjects has arrived. */
    cleanupAsked: () => seen.some((r) => r.startsWith('POST ') && r.includes('?delete')),
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

