/**
 * Where input bytes come from. One interface, one file per backend (local files, S3).
 *
 * A source lists the objects a location names (a file, a directory, a glob, an S3 key, prefix or glob), in
 * a stable order, and opens each as a byte stream. Bytes are passed through untouched: gzip and formats
 * are the formats layer's business.
 */
import type { Readable } from 'node:stream';

export interface InputObject {
  /** Absolute file path, or `s3://bucket/key`. Used in progress, rejects and errors. */
  readonly uri: string;
  /** Size in bytes when the listing knows it. */
  readonly size?: number;
  /**
   * The object's version when the store names one (S3's ETag): a resume tells an object replaced by one of
   * the same size from the one the interrupted run read.
   */
  readonly version?: string;
  /** Opens the object as a byte stream. Each call starts a new read from the first byte. */
  open(): Readable;
  /**
   * The size and version the latest `open()` found when it began (S3: its first answer's), when the store
   * says: the object may have been replaced since it was listed, and a resume compares what was read.
   */
  readAs?(): { size?: number; version?: string } | undefined;
}

export interface InputSource {
  /** The location as the user wrote it. */
  readonly location: string;
  /**
   * The objects at the location, in a stable order (sorted by path or key), listed lazily.
   * Throws `InputMissingError` naming the location when nothing is there.
   */
  listInputs(): AsyncIterable<InputObject>;
}

/**
 * Whether an object a folder, prefix or glob listed is data, by its path below the location named. Hadoop,
 * Spark and Hive write markers and bookkeeping beside their output (`_SUCCESS`, `_committed_…`,
 * `.part-0.crc`) and their readers skip every name starting with `_` or `.`; so does chatport, in each path
 * segment below the location. An object the location names itself is always read.
 */
export function isListedData(relativePath: string): boolean {
  return !relativePath.split('/').some((segment) => segment.startsWith('_') || segment.startsWith('.'));
}
