import { createHash } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as "the other origin" received it, body included. */
export interface ReceivedRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface OtherOriginOptions {
  /** Answer for each request; default 200 `{}`. Ignored when `forwardTo` is set. */
  respond?: (request: ReceivedRequest) => { status: number; headers?: Record<string, string>; body?: string | Buffer };
  /**
   * Forward every request to this origin (headers as received, minus `host`) and relay the answer:
   * a stand-in for a storage service that serves what another server holds.
   */
  forwardTo?: string;
  /** In `forwardTo` mode: the body to forward instead of the one received (bytes altered on the way). */
  alterBody?: (request: ReceivedRequest) => Buffer;
  /**
   * In `forwardTo` mode, as S3 does: a request whose `Content-MD5` is not the MD5 of the body that
   * arrives (after `alterBody`) is answered 400 BadDigest and not forwarded.
   */
  checkContentMd5?: boolean;
  /** In `forwardTo` mode: the headers to relay instead of the origin's (a store answering other ETags). */
  answerHeaders?: (request: ReceivedRequest, headers: IncomingHttpHeaders) => IncomingHttpHeaders;
  /** In `forwardTo` mode: awaited before a request is forwarded (the store changed just before it answers). */
  beforeForward?: (request: ReceivedRequest) => Promise<void>;
}

export interface OtherOrigin {
  url: string;
  received: ReceivedRequest[];
  /** In `forwardTo` mode: the bodies relayed back, in order (lets a test learn a token it must never see logged). */
  relayed: Buffer[];
  close(): Promise<void>;
}

/**
 * A tiny node:http server on 127.0.0.1 standing for "another origin" (a pre-signed storage URL, a
 * misconfigured redirect): it records exactly what it received, so tests can assert that no
 * Authorization header left the API's origin.
 */
export async function startOtherOrigin(options: OtherOriginOptions = {}): Promise<OtherOrigin> {
  const received: ReceivedRequest[] = [];
  const relayed: Buffer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const entry: ReceivedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks) };
      received.push(entry);
      if (options.forwardTo) {
        await options.beforeForward?.(entry);
        const body = options.alterBody?.(entry) ?? entry.body;
        const md5 = req.headers['content-md5'];
        if (options.checkContentMd5 && md5 !== undefined && md5 !== createHash('md5').update(body).digest('base64')) {
          res.writeHead(400, { 'content-type': 'application/xml' });
          res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>BadDigest</Code><Message>The Content-MD5 you specified did not match what we received.</Message></Error>');
          return;
        }
        const { host: _host, ...headers } = req.headers;
        const upstream = httpRequest(new URL(entry.path, options.forwardTo), { method: entry.method, headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, options.answerHeaders?.(entry, answer.headers) ?? answer.headers);
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => {
            parts.push(chunk);
            res.write(chunk);
          });
          answer.on('end', () => {
            relayed.push(Buffer.concat(parts));
            res.end();
          });
          // The origin cut its answer short: cut ours too, as a real intermediary would.
          answer.on('close', () => {
            if (!answer.complete) res.destroy();
          });
        });
        upstream.on('error', () => res.destroy());
        upstream.end(body);
        return;
      }
      const answer = options.respond?.(entry) ?? { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' };
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    relayed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
