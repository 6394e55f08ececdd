import { IMPORT_SCOPE, type ImportKind } from '../../wire/imports.js';
import { Job } from '../../wire/resources.js';
import type { Transport } from '../core/transport.js';
import { createMultipartFileBody, type FileSource } from '../http/body.js';
import { checkId, withSignal } from './common.js';
import type { Int64 } from '../../shared/int64.js';

export interface ImportOptions {
  /** The channel whose members are imported; required for `members`. */
  channelId?: Int64;
  signal?: AbortSignal;
}

export interface ImportsResource {
  /**
   * Uploads one JSON-array file to an import endpoint and returns the job (202). Repeated on 429, 5xx
   * and lost connections: the items carry idempotency keys, so the platform skips what it already applied.
   */
  upload(kind: ImportKind, source: FileSource, options?: ImportOptions): Promise<Job>;
}

export function createImportsResource(transport: Transport): ImportsResource {
  return {
    async upload(kind, source, options = {}) {
      let path = `/imports/${kind}`;
      if (kind === 'members') {
        if (options.channelId === undefined) throw new TypeError('a members import needs options.channelId');
        path = `/imports/channels/${checkId('channel', options.channelId)}/members`;
      }
      const body = await createMultipartFileBody(source);
      return transport.sendJson(
        {
          operation: `import ${kind}${'path' in source ? ` from ${source.path}` : ''}`,
          method: 'POST',
          path,
          body,
          scopes: [IMPORT_SCOPE[kind]],
          retry: 'idempotent',
          ...withSignal(options.signal),
        },
        Job,
      );
    },
  };
}
