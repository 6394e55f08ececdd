import { z } from 'zod';
import { LIMITS } from '../../wire/imports.js';
import type { Route } from '../router.js';
import { clientError, notFound } from '../errors.js';
import { sendJson, type Ctx } from '../http.js';
import type { SandboxApp } from '../app.js';
import type { UserRec } from '../store.js';
import { readBody } from './common.js';
import { userOr404 } from './users.js';

/**
 * Users beyond the data endpoints (management-api.md §4, decisions.md "The rest of the API"): secrets, the
 * display picture, and the older revision's full PUT. A secret's value is never logged.
 */

const SecretBody = z.object({ secret: z.unknown().refine((v) => v !== undefined, 'required') });
const DisplayPicture = z.object({ url: z.string().min(1), name: z.string().min(1), contentType: z.string().min(1), size: z.number().int().nonnegative() });
const FullUser = z.object({
  name: z.string().min(1).max(LIMITS.nameLength),
  displayName: z.string().min(1).max(LIMITS.displayNameLength),
  isGuest: z.boolean(),
  displayPictureUrl: z.string().min(1).optional(),
  properties: z.record(z.string(), z.unknown()).default({}),
});

const SECRET_NAME = /^[A-Za-z0-9._-]{1,128}$/;

function secretName(raw: string | undefined): string {
  if (raw === undefined || !SECRET_NAME.test(raw)) throw clientError(`path parameter 'name' must be 1 to 128 letters, digits, '.', '_' or '-'`);
  return raw;
}

function saveUser(ctx: Ctx, app: SandboxApp, next: UserRec): void {
  app.store.change({ t: 'user', v: next });
  sendJson(ctx, 200, app.render.user(next));
}

export const userExtraRoutes: Route[] = [
  {
    method: 'PUT',
    path: '/users/:id/secrets/:name',
    scopes: ['read:user', 'update:user_secret'],
    handler: async (ctx, app) => {
      const user = userOr404(ctx, app);
      const name = secretName(ctx.params.name);
      const { secret } = await readBody(ctx, SecretBody);
      app.store.change({ t: 'secret', u: user.id, name, value: secret });
      sendJson(ctx, 200, app.render.user(user));
    },
  },
  {
    method: 'GET',
    path: '/users/:id/secrets/:name',
    scopes: ['read:user_secret'],
    handler: (ctx, app) => {
      const user = userOr404(ctx, app);
      const name = secretName(ctx.params.name);
      const secrets = app.store.secrets.get(user.id);
      if (!secrets?.has(name)) throw notFound();
      const self = `${app.baseUrl()}/users/${app.ids.toWire(user.id)}/secrets/${encodeURIComponent(name)}`;
      const secret = secrets.get(name);
      // A null secret (any JSON value may be set) is a field without a value: left out, never sent as null (wire rule 3).
      sendJson(ctx, 200, { ...(secret === null ? {} : { secret }), _links: { self: { href: self }, user: { href: `${app.baseUrl()}/users/${app.ids.toWire(user.id)}` } } });
    },
  },
  {
    method: 'DELETE',
    path: '/users/:id/secrets/:name',
    scopes: ['read:user', 'delete:user_secret'],
    handler: (ctx, app) => {
      const user = userOr404(ctx, app);
      const name = secretName(ctx.params.name);
      if (!app.store.secrets.get(user.id)?.has(name)) throw notFound();
      app.store.change({ t: '-secret', u: user.id, name });
      sendJson(ctx, 200, app.render.user(user));
    },
  },
  {
    method: 'POST',
    path: '/users/:id/display-picture',
    scopes: ['read:user', 'update:user'],
    handler: async (ctx, app) => {
      const user = userOr404(ctx, app);
      // decisions.md: a JSON external file, or a multipart part `file` stored HOSTED (served without a token).
      if ((ctx.req.headers['content-type'] ?? '').startsWith('multipart/')) {
        const { file } = await app.files.readForm(ctx);
        if (!file.contentType.startsWith('image/')) throw clientError(`part 'file': a display picture is an image, got '${file.contentType}'`);
        saveUser(ctx, app, { ...user, displayPictureUrl: app.files.url(file) });
        return;
      }
      const picture = await readBody(ctx, DisplayPicture);
      saveUser(ctx, app, { ...user, displayPictureUrl: picture.url });
    },
  },
  {
    // The older revision's full replace of the User (§4): what the body leaves out is cleared (properties
    // to {}, displayPictureUrl removed), properties are replaced (not merged).
    method: 'PUT',
    path: '/users/:id',
    scopes: ['read:user', 'update:user'],
    handler: async (ctx, app) => {
      const user = userOr404(ctx, app);
      const body = await readBody(ctx, FullUser);
      if (body.name !== user.name && app.store.usersByName.has(body.name)) throw clientError(`username '${body.name}' is already taken`);
      const { displayPictureUrl: _old, ...kept } = user;
      const picture = body.displayPictureUrl === undefined ? {} : { displayPictureUrl: body.displayPictureUrl };
      saveUser(ctx, app, { ...kept, name: body.name, displayName: body.displayName, isGuest: body.isGuest, ...picture, properties: body.properties });
    },
  },
];
