import { z } from 'zod';
import { Application, ApplicationSettings } from '../../wire/resources.js';
import type { Transport } from '../core/transport.js';
import { createJsonBody } from '../http/body.js';
import { withSignal } from './common.js';

/** An older revision nests the toggles under `features` in snake_case (management-api.md §2). */
const LegacySettings = z.looseObject({ features: z.looseObject({ guest_users: z.string(), user_created_channels: z.string() }) });
const AnySettings = z.union([
  ApplicationSettings,
  LegacySettings.transform((s) => ({ guestUsers: s.features.guest_users, userCreatedChannels: s.features.user_created_channels })),
]);

export interface ApplicationResource {
  get(options?: { signal?: AbortSignal }): Promise<Application>;
  getSettings(options?: { signal?: AbortSignal }): Promise<ApplicationSettings>;
  /** PUT of both toggles (a full replace, so it may be repeated). */
  putSettings(settings: ApplicationSettings, options?: { signal?: AbortSignal }): Promise<ApplicationSettings>;
}

export function createApplicationResource(transport: Transport): ApplicationResource {
  return {
    get: (options = {}) =>
      transport.sendJson({ operation: 'get the application', method: 'GET', path: '/application', scopes: ['read:application'], retry: 'idempotent', ...withSignal(options.signal) }, Application),
    getSettings: (options = {}) =>
      transport.sendJson(
        { operation: 'get the application settings', method: 'GET', path: '/application/settings', scopes: ['read:application'], retry: 'idempotent', ...withSignal(options.signal) },
        AnySettings,
      ),
    putSettings: (settings, options = {}) =>
      transport.sendJson(
        {
          operation: 'update the application settings',
          method: 'PUT',
          path: '/application/settings',
          body: createJsonBody({ guestUsers: settings.guestUsers, userCreatedChannels: settings.userCreatedChannels }),
          scopes: ['update:application'],
          retry: 'idempotent',
          ...withSignal(options.signal),
        },
        AnySettings,
      ),
  };
}
