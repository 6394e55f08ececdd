import { z } from 'zod';
import type { Route } from '../router.js';
import { sendJson } from '../http.js';
import { readBody } from './common.js';

const Toggle = z.enum(['DISABLED', 'ENABLED']);
const SettingsBody = z.object({ guestUsers: Toggle, userCreatedChannels: Toggle });

export const applicationRoutes: Route[] = [
  {
    method: 'GET',
    path: '/application',
    scopes: ['read:application'],
    handler: (ctx, app) => sendJson(ctx, 200, app.render.application()),
  },
  {
    method: 'GET',
    path: '/application/settings',
    scopes: ['read:application'],
    handler: (ctx, app) => sendJson(ctx, 200, { ...app.store.settings }),
  },
  {
    method: 'PUT',
    path: '/application/settings',
    scopes: ['update:application'],
    handler: async (ctx, app) => {
      const body = await readBody(ctx, SettingsBody);
      app.store.change({ t: 'settings', v: { guestUsers: body.guestUsers, userCreatedChannels: body.userCreatedChannels } });
      sendJson(ctx, 200, { ...app.store.settings });
    },
  },
];
