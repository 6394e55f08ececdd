/**
 * A real S3-compatible server for tests: s3rver 3.7.1 in a child process on 127.0.0.1, on a free port,
 * storing into a fresh temp directory. No S3 mocks: the SDK talks HTTP to it like to any store.
 *
 * Per docs/dependencies.md it runs under `node --openssl-legacy-provider` (ListObjectsV2 paging answers 500
 * under OpenSSL 3 otherwise), and clients must use `WHEN_REQUIRED` checksums (see `s3ClientConfig`).
 *
 * Per file:    `const s3 = await startS3Server(); afterAll(() => s3.close());`
 * globalSetup: `export { default } from './test/helpers/s3-server.js'` and `inject('s3Server')` in tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

export interface S3ServerInfo {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

export interface S3Server extends S3ServerInfo {
  /** Creates a bucket (idempotent enough for tests: an existing bucket is fine). */
  createBucket(name: string): Promise<void>;
  /** An SDK client configured for this server. */
  client(): S3Client;
  close(): Promise<void>;
}

// s3rver's built-in account; it does not check the secret (so tests must not rely on signature checks).
const ACCESS_KEY = 'S3RVER';
const SECRET_KEY = 'S3RVER';
const REGION = 'us-east-1';

const CHILD_SCRIPT = `
const S3rver = require(process.env.S3RVER_MAIN);
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: process.env.S3RVER_DIR });
server.run().then(
  (address) => { process.stdout.write(JSON.stringify({ port: address.port }) + '\\n'); },
  (error) => { process.stderr.write(String(error && error.stack || error) + '\\n'); process.exit(1); },
);
const stop = () => server.close().catch(() => undefined).finally(() => {
  require('node:fs').rmSync(process.env.S3RVER_DIR, { recursive: true, force: true });
  process.exit(0);
});
process.on('SIGTERM', stop);
// The parent holds our stdin open; when it dies (a crashed test worker), the pipe closes and we go too.
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
`;

/** Client settings for S3-compatible stores like this one (the chunked-upload corruption fix included). */
export function s3ClientConfig(info: S3ServerInfo) {
  return {
    endpoint: info.endpoint,
    region: info.region,
    forcePathStyle: true,
    credentials: { accessKeyId: info.accessKeyId, secretAccessKey: info.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED' as const,
    responseChecksumValidation: 'WHEN_REQUIRED' as const,
  };
}

function waitForPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      lines.close();
      try {
        resolve((JSON.parse(line) as { port: number }).port);
      } catch (error) {
        reject(new Error(`s3rver printed an unexpected line: ${line}`, { cause: error }));
      }
    });
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code} before listening: ${stderr}`)));
    child.once('error', reject);
  });
}

export async function startS3Server(): Promise<S3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'chatport-s3rver-'));
  const s3rverMain = createRequire(import.meta.url).resolve('s3rver');
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', CHILD_SCRIPT], {
    env: { ...process.env, S3RVER_MAIN: s3rverMain, S3RVER_DIR: directory },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let port: number;
  try {
    port = await waitForPort(child);
  } catch (error) {
    child.kill('SIGKILL');
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  const info: S3ServerInfo = { endpoint: `http://127.0.0.1:${port}`, accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY, region: REGION };
  const clients: S3Client[] = [];
  const client = () => {
    const c = new S3Client(s3ClientConfig(info));
    clients.push(c);
    return c;
  };
  let closed = false;
  return {
    ...info,
    client,
    async createBucket(name) {
      const c = new S3Client(s3ClientConfig(info));
      try {
        await c.send(new CreateBucketCommand({ Bucket: name }));
      } catch (error) {
        if ((error as { name?: string }).name !== 'BucketAlreadyOwnedByYou') throw error;
      } finally {
        c.destroy();
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const c of clients) c.destroy();
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
        await exited;
        clearTimeout(timer);
      }
      await rm(directory, { recursive: true, force: true });
    },
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    s3Server: S3ServerInfo;
  }
}

/** vitest globalSetup: one server for the whole run, its address offered as `inject('s3Server')`. */
export default async function setup(project: { provide(key: 's3Server', value: S3ServerInfo): void }): Promise<() => Promise<void>> {
  const server = await startS3Server();
  project.provide('s3Server', {
    endpoint: server.endpoint,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    region: server.region,
  });
  return () => server.close();
}
