import type { Route } from '../router.js';
import { handleTokenRequest } from '../auth.js';
import { sendJson } from '../http.js';
import { MEDIA } from '../../wire/media.js';
import { statusError } from '../errors.js';

/** POST /oauth/token (decisions.md "Authentication"); the token URL is configuration on the client side. */
export const tokenRoutes: Route[] = [
  {
    method: 'POST',
    path: '/oauth/token',
    scopes: null,
    handler: async (ctx, app) => {
      let text = '';
      for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
        text += chunk.toString('utf8');
        if (text.length > 16_384) throw statusError(413, 'token request body too large');
      }
      const { status, body } = handleTokenRequest(
        app.tokens,
        app.tokenLifetimeSeconds,
        ctx.req.headers.authorization,
        ctx.req.headers['content-type'],
        text,
      );
      sendJson(ctx, status, body, { 'content-type': MEDIA.json });
    },
  },
];
