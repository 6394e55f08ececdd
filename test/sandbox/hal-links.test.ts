import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type Body, type Reply, type TestSandbox } from './helpers.js';

/**
 * management-api.md §1 wire rule 5: "Any resource may carry a `_links` object of HAL links … Clients are
 * expected to follow links instead of building URLs." A link the sandbox hands out must therefore answer
 * when a client follows it with GET: every href below (self, next, channel, user, …) is followed and must
 * answer 200, or a rehearsal teaches a client links the platform would not give it.
 */
let t: TestSandbox;
beforeAll(async () => {
  t = await startTestSandbox({ seed: 'demo' });
});
afterAll(() => t.close());

const post = (path: string, body: Body) => t.call(path, { method: 'POST', body });

/** Every `_links` href anywhere in a body, with the JSON path it was found at. */
function linksOf(value: unknown, path = '$', out: Array<{ at: string; href: string }> = []): Array<{ at: string; href: string }> {
  if (Array.isArray(value)) value.forEach((v, i) => linksOf(v, `${path}[${i}]`, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '_links' && v && typeof v === 'object') {
        for (const [rel, l] of Object.entries(v as Record<string, { href?: string }>)) if (l?.href) out.push({ at: `${path}._links.${rel}`, href: l.href });
      } else linksOf(v, `${path}.${k}`, out);
    }
  }
  return out;
}

/** The links of one answer that do not answer 200 when followed right away (the state they were handed out in). */
async function failingLinks(what: string, reply: Reply, seen: Set<string>): Promise<string[]> {
  expect(reply.status, what).toBeLessThan(300);
  const failing: string[] = [];
  for (const { at, href } of linksOf(reply.json)) {
    // Hosted files and export data are served at their own addresses (decisions.md); only the API's links are followed.
    if (!href.startsWith(t.url) || seen.has(href)) continue;
    // §2: a function's _links "includes currentVersion" also while currentVersionNumber is 0 ("no version is
    // deployed"); that one answers 404 until the first deploy (docs/chat-functions.md).
    if (at.endsWith('._links.currentVersion') && /"currentVersionNumber":0[,}]/.test(reply.text)) continue;
    const followed = await t.call(href);
    if (followed.status === 200) seen.add(href);
    else failing.push(`${what} ${at} ${href} → ${followed.status}`);
  }
  return failing;
}

describe('every link the sandbox hands out answers 200 when followed (wire rule 5)', () => {
  it('links of channels, members, messages, threads, users, sessions, invites, events, keystrokes, secrets, jobs, pages', async () => {
    const failing: string[] = [];
    const seen = new Set<string>();
    const keep = async (what: string, reply: Promise<Reply>) => {
      const r = await reply;
      failing.push(...(await failingLinks(what, r, seen)));
      return r;
    };
    await keep('GET /application', t.call('/application'));
    await keep('GET /application/settings', t.call('/application/settings'));
    await keep('GET /channels', t.call('/channels?size=1'));
    await keep('GET /channels/1/members', t.call('/channels/1/members?size=1'));
    await keep('GET /channels/1/memberships', t.call('/channels/1/memberships'));
    await keep('POST /channels/2/members', post('/channels/2/members', { username: 'alice' }));
    const message = await keep('POST /channels/1/messages', post('/channels/1/messages', { type: 'TEXT', body: 'hi', user: { username: 'alice' } }));
    await keep('GET /channels/1/messages', t.call('/channels/1/messages?size=1'));
    await keep('GET /messages', t.call('/messages?size=1'));
    await keep('GET /users', t.call('/users?size=1'));
    await keep('GET /users/1/channels', t.call('/users/1/channels?size=1'));
    await keep('GET /users/1/messages', t.call('/users/1/messages?size=1'));
    const thread = await t.call(message.json._links.replies.href);
    await keep('POST /threads/{id}/messages', post(`/threads/${thread.json.id}/messages`, { type: 'TEXT', body: 'reply', user: { username: 'bob' } }));
    await keep('GET /threads/{id}/messages', t.call(`/threads/${thread.json.id}/messages`));
    await keep('POST /threads/{id}/keystrokes', post(`/threads/${thread.json.id}/keystrokes`, { keys: 'ty', user: { username: 'bob' } }));
    await keep('GET /users/1/notifications', t.call('/users/1/notifications?size=1'));
    await keep('POST /channels/1/invites', post('/channels/1/invites', { user: { username: 'announcer' } }));
    await keep('GET /channels/1/invites', t.call('/channels/1/invites'));
    await keep('POST /channels/1/events', post('/channels/1/events', { type: 'custom', properties: { a: 1 } }));
    await keep('POST /channels/1/keystrokes', post('/channels/1/keystrokes', { keys: 'ty', user: { username: 'alice' } }));
    await keep('POST /channels/1/moderators', post('/channels/1/moderators', { username: 'bob' }));
    await keep('GET /channels/1/moderators', t.call('/channels/1/moderators'));
    await keep('PUT /users/2/secrets/k', t.call('/users/2/secrets/k', { method: 'PUT', body: { secret: 'x' } }));
    await keep('GET /users/2/secrets/k', t.call('/users/2/secrets/k'));
    const session = await keep('POST /_sandbox/user-sessions', post('/_sandbox/user-sessions', { username: 'alice' }));
    await keep('POST /_sandbox/chat-sessions', post('/_sandbox/chat-sessions', { userSessionId: session.json.id, channelId: 1 }));
    await keep('GET /user-sessions', t.call('/user-sessions'));
    await keep('GET /chat-sessions', t.call('/chat-sessions'));
    await keep('POST /_sandbox/messages/{id}/read', post(`/_sandbox/messages/${message.json.id}/read`, { username: 'bob' }));
    await keep('GET /messages/{id}/read-receipts', t.call(`/messages/${message.json.id}/read-receipts`));
    await keep('GET /application/message-read-receipt-summaries', t.call('/application/message-read-receipt-summaries'));
    const job = await keep('POST /imports/users', t.upload('/imports/users', [{ name: 'dave', displayName: 'Dave', isGuest: false, properties: {} }]));
    await t.waitJob(job.json.id);
    await keep('GET /jobs', t.call('/jobs?size=1'));
    const fn = await keep('POST /runtimes/nodejs/functions', post('/runtimes/nodejs/functions', { type: 'user.sent.message', name: 'f', initializeAsynchronously: false }));
    await keep('POST /functions/{id}/versions', post(`/functions/${fn.json.id}/versions`, { handlerScript: 'async function handleEvent() { return 1; }' }));
    await keep('GET /functions/{id}/versions', t.call(`/functions/${fn.json.id}/versions`));
    await keep('GET /functions/{id}/current-version', t.call(`/functions/${fn.json.id}/current-version`));
    await keep('GET /runtimes/nodejs', t.call('/runtimes/nodejs'));
    await keep('GET /runtimes/nodejs/functions', t.call('/runtimes/nodejs/functions'));
    await post('/channels/1/messages', { type: 'TEXT', body: 'runs f', user: { username: 'alice' } });
    for (let i = 0; i < 200 && (await t.call(`/functions/${fn.json.id}/invocations`)).json._embedded.invocations.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    await keep('GET /functions/{id}/invocations', t.call(`/functions/${fn.json.id}/invocations`));
    const exported = await keep('POST /analytics/messages', t.call('/analytics/messages', { method: 'POST' }));
    await t.waitJob(exported.json.id);
    await keep('GET /jobs/{id} (export)', t.call(`/jobs/${exported.json.id}`));
    await keep('DELETE /messages/{id}', t.call(`/messages/${message.json.id}`, { method: 'DELETE' }));
    expect(failing).toEqual([]);
  });
});
