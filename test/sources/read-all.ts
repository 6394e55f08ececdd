import type { Readable } from 'node:stream';
import type { InputSource } from '../../src/sources/index.js';

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

export async function listUris(source: InputSource): Promise<string[]> {
  const uris: string[] = [];
  for await (const input of source.listInputs()) uris.push(input.uri);
  return uris;
}
