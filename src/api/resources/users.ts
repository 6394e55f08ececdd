import { User, offsetPage } from '../../wire/resources.js';
import type { Transport } from '../core/transport.js';
import { isNotFoundError } from '../errors/guards.js';
import { createMergePatchBody } from '../http/body.js';
import { iterateItems, iteratePages } from '../hal/paginate.js';
import { checkId, checkPageSize, withSignal, type ListOptions } from './common.js';
import type { Int64 } from '../../shared/int64.js';

const SCOPES = ['read:user'];
const UserPage = offsetPage('users', User);

export interface UserFilter extends ListOptions {
  /** Username filter. */
  name?: string;
  /** Users whose properties contain every given key with an equal value (decisions.md). */
  properties?: Record<string, unknown>;
}

export interface UsersResource {
  list(filter?: UserFilter): AsyncIterable<User>;
  /** HEAD /users?name=…: true when the username exists, false on 404. */
  exists(name: string, options?: { signal?: AbortSignal }): Promise<boolean>;
  get(id: Int64, options?: { signal?: AbortSignal }): Promise<User>;
  /** PATCH /users/{id} with a JSON merge patch (`null` removes a field); answers the updated user. */
  update(id: Int64, patch: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<User>;
}

export function createUsersResource(transport: Transport): UsersResource {
  return {
    list(filter = {}) {
      const query = {
        size: checkPageSize(filter.pageSize),
        name: filter.name,
        properties: filter.properties === undefined ? undefined : JSON.stringify(filter.properties),
      };
      return iterateItems<User>(
        iteratePages(transport, { operation: 'list users', method: 'GET', path: '/users', query, scopes: SCOPES, retry: 'idempotent', ...withSignal(filter.signal) }, UserPage, 'users'),
      );
    },
    async exists(name, options = {}) {
      try {
        const response = await transport.send({
          operation: `check whether user "${name}" exists`,
          method: 'HEAD',
          path: '/users',
          query: { name },
          scopes: SCOPES,
          retry: 'idempotent',
          ...withSignal(options.signal),
        });
        await response.body.dump();
        return true;
      } catch (error) {
        if (isNotFoundError(error)) return false;
        throw error;
      }
    },
    get: (id, options = {}) =>
      transport.sendJson({ operation: `get user ${id}`, method: 'GET', path: `/users/${checkId('user', id)}`, scopes: SCOPES, retry: 'idempotent', ...withSignal(options.signal) }, User),
    update: (id, patch, options = {}) =>
      transport.sendJson(
        // A merge patch sent twice leaves the same record: safe to repeat.
        { operation: `update user ${id}`, method: 'PATCH', path: `/users/${checkId('user', id)}`, body: createMergePatchBody(patch), scopes: [...SCOPES, 'update:user'], retry: 'idempotent', ...withSignal(options.signal) },
        User,
      ),
  };
}
