/**
 * One behaviour suite for every input source backend (as destination-contract.ts is for the sinks): the same
 * listings and reads against local files and against a real S3-compatible server.
 */
import { describe, expect, it } from 'vitest';
import { InputMissingError } from '../../src/shared/errors.js';
import type { InputSource } from '../../src/sources/index.js';
import { listUris, readAll } from './read-all.js';

export interface SourceUnderTest {
  /** Stores `bytes` at `path` (relative, `/`-separated) below the backend's root. */
  put(path: string, bytes: string): Promise<void>;
  /** The source for a location below the root (a file or key, a folder or prefix ending in `/`, a glob). */
  source(location: string): InputSource;
  /** The uri a listed object at `path` below the root has. */
  uri(path: string): string;
}

export function describeSourceContract(name: string, backend: () => SourceUnderTest): void {
  describe(`${name}: the input source contract`, () => {
    it('lists one object named itself, with its size, and reads its bytes', async () => {
      const b = backend();
      await b.put('one/users.csv', 'id,name\n1,a\n');
      const inputs = [];
      for await (const input of b.source('one/users.csv').listInputs()) inputs.push(input);
      expect(inputs.map((i) => [i.uri, i.size])).toEqual([[b.uri('one/users.csv'), 12]]);
      expect((await readAll(inputs[0]!.open())).toString()).toBe('id,name\n1,a\n');
    });

    it('lists every object below a folder, sorted, leaving out the markers and bookkeeping that Spark, Hadoop and Hive write beside their output', async () => {
      const b = backend();
      await Promise.all([
        b.put('spark/part-00001.csv', 'id\n2\n'),
        b.put('spark/part-00000.csv', 'id\n1\n'),
        b.put('spark/day=2/part-00000.csv', 'id\n3\n'),
        b.put('spark/_SUCCESS', ''),
        b.put('spark/_committed_4711', '{"added":["part-00000.csv"]}'),
        b.put('spark/.part-00000.csv.crc', 'crc'),
        b.put('spark/_temporary/0/part-00002.csv', 'id\n9\n'),
      ]);
      const data = [b.uri('spark/day=2/part-00000.csv'), b.uri('spark/part-00000.csv'), b.uri('spark/part-00001.csv')];
      expect(await listUris(b.source('spark/'))).toEqual(data);
      expect(await listUris(b.source('spark/**/*'))).toEqual(data);
      // Named itself, a marker is read like any object.
      expect(await listUris(b.source('spark/_SUCCESS'))).toEqual([b.uri('spark/_SUCCESS')]);
    });

    it('says nothing is there when a folder holds markers only, or nothing matches', async () => {
      const b = backend();
      await b.put('markers-only/_SUCCESS', '');
      await expect(listUris(b.source('markers-only/'))).rejects.toBeInstanceOf(InputMissingError);
      await expect(listUris(b.source('absent/*.csv'))).rejects.toBeInstanceOf(InputMissingError);
    });
  });
}
