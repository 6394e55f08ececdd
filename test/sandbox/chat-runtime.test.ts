import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISO, startTestSandbox, type Body, type TestSandbox } from './helpers.js';

let t: TestSandbox;
beforeAll(async () => {
  // Short limits so a looping handler is stopped quickly; the limits themselves are what is tested.
  t = await startTestSandbox({ seed: 'demo', functionLimits: { timeoutMs: 1500, memoryMb: 32 } });
});
afterAll(() => t.close());

const post = (path: string, body: Body) => t.call(path, { method: 'POST', body });
const put = (path: string, body: Body) => t.call(path, { method: 'PUT', body });

async function deploy(type: string, name: string, handlerScript: string): Promise<number> {
  const fn = await post('/runtimes/nodejs/functions', { type, name, initializeAsynchronously: false });
  expect(fn.status).toBe(200);
  expect((await post(`/functions/${fn.json.id}/versions`, { handlerScript })).status).toBe(200);
  return fn.json.id as number;
}

/** The function's newest invocation once it has ended (invocations run after the message's answer). */
async function ended(functionId: number, count = 1): Promise<Body> {
  for (;;) {
    const list = (await t.call(`/functions/${functionId}/invocations`)).json._embedded.invocations as Body[];
    if (list.length >= count && list[0].status !== 'RUNNING') return list[0];
    await new Promise((r) => setTimeout(r, 20));
  }
}

const sendAsAlice = (body: string) => post('/channels/1/messages', { type: 'TEXT', body, user: { username: 'alice' } });

describe('the runtime and its functions (management-api.md §4, decisions.md)', () => {
  it('GET /runtimes/nodejs: NODEJS, default dependencies, no script, no variables; the PUTs change it', async () => {
    const runtime = await t.call('/runtimes/nodejs');
    expect(runtime.json).toEqual({
      id: 1,
      type: 'NODEJS',
      version: '20',
      dependencies: [{ name: '@chatport/functions-sdk', version: '1.0.0', defaultDependency: true }],
      initializationScript: { script: '' },
      environmentVariables: {},
      _links: { self: { href: `${t.url}/runtimes/nodejs` }, functions: { href: `${t.url}/runtimes/nodejs/functions` } },
    });
    const deps = await put('/runtimes/nodejs/dependencies', [{ name: 'lodash', version: '4.17.21', defaultDependency: false }]);
    expect(deps.json.dependencies).toEqual([
      { name: '@chatport/functions-sdk', version: '1.0.0', defaultDependency: true },
      { name: 'lodash', version: '4.17.21', defaultDependency: false },
    ]);
    // §2: defaultDependency is required in each item; without it the update is a 400 and changes nothing.
    const partial = await put('/runtimes/nodejs/dependencies', [{ name: 'left-pad', version: '1.3.0' }]);
    expect(partial.json).toEqual({ error: 'ClientError', message: expect.stringContaining("field '0.defaultDependency'"), timestamp: expect.any(String) });
    expect((await t.call('/runtimes/nodejs')).json.dependencies.map((d: { name: string }) => d.name)).toEqual(['@chatport/functions-sdk', 'lodash']);
    // A default dependency cannot be removed by leaving it out.
    expect((await put('/runtimes/nodejs/dependencies', [])).json.dependencies).toHaveLength(1);
    expect((await put('/runtimes/nodejs/environment-variables', { GREETING: 'hello' })).json.environmentVariables).toEqual({ GREETING: 'hello' });
    expect((await put('/runtimes/nodejs/environment-variables', { 'bad-name': 'x' })).status).toBe(400);
    expect((await put('/runtimes/nodejs/initialization-script', { script: 'const prefix = "init:";' })).json.initializationScript).toEqual({ script: 'const prefix = "init:";' });
    expect((await put('/runtimes/nodejs/initialization-script', { script: 'const = ;' })).status).toBe(400);
    expect((await t.call('/runtimes/nodejs', { token: t.sandbox.issueToken({ scopes: ['read:function'] }) })).status).toBe(403);
  });

  it('functions are created enabled at version 0; each deployed version is the next number and current', async () => {
    const fn = await post('/runtimes/nodejs/functions', { type: 'user.received.notification', name: 'noop', initializeAsynchronously: false, description: 'does nothing' });
    expect(fn.json).toEqual({
      id: fn.json.id,
      type: 'user.received.notification',
      runtime: { id: 1, type: 'NODEJS', version: '20' },
      name: 'noop',
      description: 'does nothing',
      enabled: true,
      currentVersionNumber: 0,
      _links: {
        self: { href: `${t.url}/functions/${fn.json.id}` },
        versions: { href: `${t.url}/functions/${fn.json.id}/versions` },
        currentVersion: { href: `${t.url}/functions/${fn.json.id}/current-version` },
        invocations: { href: `${t.url}/functions/${fn.json.id}/invocations` },
      },
    });
    expect((await t.call(`/functions/${fn.json.id}/current-version`)).status).toBe(404);
    const v1 = await post(`/functions/${fn.json.id}/versions`, { handlerScript: 'async function handleEvent() { return 1; }' });
    const v2 = await post(`/functions/${fn.json.id}/versions`, { handlerScript: 'async function handleEvent() { return 2; }' });
    expect([v1.json.versionNumber, v2.json.versionNumber]).toEqual([1, 2]);
    expect((await t.call(`/functions/${fn.json.id}`)).json.currentVersionNumber).toBe(2);
    expect((await t.call(`/functions/${fn.json.id}/current-version`)).json).toMatchObject({ id: v2.json.id, versionNumber: 2 });
    expect((await t.call(`/function-versions/${v1.json.id}`)).json.handlerScript).toContain('return 1');
    expect((await t.call(`/functions/${fn.json.id}/versions`)).json._embedded.versions.map((v: Body) => v.versionNumber)).toEqual([1, 2]);
    expect((await post('/runtimes/nodejs/functions', { type: 'user.did.something', name: 'x', initializeAsynchronously: false })).status).toBe(400);
    expect((await post(`/functions/${fn.json.id}/versions`, { handlerScript: 'function (' })).status).toBe(400);
    // Stripping types leaves a decorator, which JavaScript lacks: refused now, not FAILED at each run.
    const decorated = await post(`/functions/${fn.json.id}/versions`, { handlerScript: 'function log(t: unknown) {}\nclass A { @log m() { return 1; } }\nasync function handleEvent() { return new A().m(); }' });
    expect(decorated.json).toMatchObject({ error: 'ClientError', message: expect.stringContaining("field 'handlerScript': the script does not parse") });
    expect((await put('/runtimes/nodejs/initialization-script', { script: 'class B { @log n() {} }' })).status).toBe(400);
    // Module syntax is taken at deploy (the platform installs dependencies); here it cannot run.
    expect((await post(`/functions/${fn.json.id}/versions`, { handlerScript: 'import pad from "left-pad";\nexport async function handleEvent(): Promise<string> { return pad("x", 2); }' })).status).toBe(200);
    expect((await t.call(`/functions/${fn.json.id}`)).json.currentVersionNumber).toBe(3);
    expect((await t.call('/functions/999999')).status).toBe(404);
  });

  it('a TypeScript handler runs on a sent message with the event, the init script, process.env and context; its invocation is recorded', async () => {
    const id = await deploy(
      'user.sent.message',
      'echo',
      `interface SentEvent { message: { body: string; user?: { name: string } }; channel: { id: number } }
       async function handleEvent(event: SentEvent, context: any): Promise<Record<string, unknown>> {
         if (event.message.body.startsWith('bot:')) return { skipped: true };
         const exists = await context.getUserApi().getUserExists(event.message.user!.name);
         const reply = await context.getChannelApi().sendChannelMessage(event.channel.id, { type: 'SYSTEM_TEXT', body: 'bot: ' + prefix + event.message.body });
         return { exists: exists.data, greeting: process.env.GREETING, replyId: reply.data.id, hasRequire: typeof require, hasFetch: typeof fetch };
       }`,
    );
    await sendAsAlice('ping');
    const invocation = await ended(id);
    expect(invocation).toEqual({
      id: invocation.id,
      versionNumber: 1,
      args: expect.objectContaining({ message: expect.objectContaining({ body: 'ping' }), channel: expect.objectContaining({ id: 1 }) }),
      status: 'SUCCEEDED',
      result: { payload: { exists: true, greeting: 'hello', replyId: expect.any(Number), hasRequire: 'undefined', hasFetch: 'undefined' } },
      createdTime: expect.stringMatching(ISO),
      _links: { function: { href: `${t.url}/functions/${id}` } },
    });
    const reply = await t.call(`/messages/${invocation.result.payload.replyId}`);
    expect(reply.json.body).toBe('bot: init:ping');
    // What the function sent ran no function again: one invocation only.
    expect((await t.call(`/functions/${id}/invocations`)).json._embedded.invocations).toHaveLength(1);
    // A client sending the runtime's header does not keep functions from running: its message is answered.
    await t.call('/channels/1/messages', { method: 'POST', body: { type: 'TEXT', body: 'pong', user: { username: 'alice' } }, headers: { 'x-chatport-function': '1' } });
    expect((await ended(id, 2)).args.message.body).toBe('pong');
    await t.call(`/functions/${id}/versions`, { method: 'POST', body: { handlerScript: 'async function handleEvent() { return "off"; }' } });
  });

  it('a throwing, a looping, an allocating and a file-system-reaching handler each end FAILED, and the sandbox keeps answering', async () => {
    const handlers = {
      throws: 'async function handleEvent() { throw new Error("no thanks"); }',
      loops: 'async function handleEvent() { for (;;) {} }',
      allocates: 'async function handleEvent() { const keep = []; for (;;) keep.push(new Array(100000).fill(7)); }',
      files: 'async function handleEvent() { const fs = require("fs"); return fs.readFileSync("/etc/passwd", "utf8"); }',
      hostProcess: 'async function handleEvent() { return process.mainModule || process.exit(1); }',
    };
    const ids: Record<string, number> = {};
    for (const [name, script] of Object.entries(handlers)) ids[name] = await deploy('user.sent.message', name, script);
    await sendAsAlice('trouble');
    // While the looping handler runs, the sandbox answers.
    expect((await t.call('/users/1')).status).toBe(200);
    const outcomes = Object.fromEntries(await Promise.all(Object.entries(ids).map(async ([name, id]) => [name, await ended(id)] as const)));
    expect(outcomes.throws).toMatchObject({ status: 'FAILED', result: { error: 'no thanks' } });
    expect(outcomes.loops).toMatchObject({ status: 'FAILED', result: { error: 'the handler ran longer than its time limit (1500 ms) and was stopped' } });
    expect(outcomes.allocates.status).toBe('FAILED');
    expect(outcomes.allocates.result.error).toMatch(/memory limit|time limit/);
    expect(outcomes.files).toMatchObject({ status: 'FAILED', result: { error: expect.stringContaining('require is not defined') } });
    // process is the runtime's (env only): no exit, no mainModule.
    expect(outcomes.hostProcess.status).toBe('FAILED');
    expect((await t.call('/application')).status).toBe(200);
  });

  it('a handler may name its own top-level call, context and process; they do not clash with the runtime\'s', async () => {
    const id = await deploy(
      'user.sent.message',
      'own-names',
      `const call = (n: number) => n + 1;
       let context = 'mine';
       function process() { return 'shadowed'; }
       async function handleEvent(event: unknown, ctx: any) {
         return { call: call(1), context, process: process(), exists: (await ctx.getUserApi().getUserExists('alice')).data };
       }`,
    );
    await sendAsAlice('names');
    expect((await ended(id)).result).toEqual({ payload: { call: 2, context: 'mine', process: 'shadowed', exists: true } });
    await post(`/functions/${id}/versions`, { handlerScript: 'async function handleEvent() { return "off"; }' });
  });

  it('the host reference behind context is out of the handler\'s reach (calling it with any name would reach the host)', async () => {
    const id = await deploy(
      'user.sent.message',
      'reach',
      `async function handleEvent() {
         const seen = [typeof $0, typeof $1, typeof $2];
         if (typeof $1 === 'object') await $1.apply(undefined, ['hasOwnProperty', '[]'], { arguments: { copy: true }, result: { promise: true, copy: true } }).catch(() => {});
         Error.prepareStackTrace = (e, frames) => frames.map((f) => typeof f.getFunction()).join(',');
         return { seen, frames: new Error().stack };
       }`,
    );
    await sendAsAlice('reach');
    // The runtime's own frames (below the handler's) are strict: no function, so no arguments to read.
    expect((await ended(id)).result).toEqual({ payload: { seen: ['undefined', 'undefined', 'undefined'], frames: expect.stringMatching(/^function(,undefined)+$/) } });
    expect((await t.call('/application')).status).toBe(200);
    await post(`/functions/${id}/versions`, { handlerScript: 'async function handleEvent() { return "off"; }' });
  });

  it('a handler throwing a value that loops when read is stopped by the time limit, and what it throws is read as text', async () => {
    const handlers = {
      getter: 'async function handleEvent() { const e = new Error("x"); Object.defineProperty(e, "message", { get() { for (;;) {} } }); throw e; }',
      proxy: 'throw new Proxy({}, { get() { for (;;) {} } });\nasync function handleEvent() {}',
      object: 'async function handleEvent() { throw { code: 42 }; }',
    };
    const ids = Object.fromEntries(await Promise.all(Object.entries(handlers).map(async ([name, script]) => [name, await deploy('user.sent.message', `throws-${name}`, script)] as const)));
    await sendAsAlice('poison');
    expect((await ended(ids.getter!)).result).toEqual({ error: 'the handler ran longer than its time limit (1500 ms) and was stopped' });
    expect((await ended(ids.proxy!)).result).toEqual({ error: 'the handler ran longer than its time limit (1500 ms) and was stopped' });
    expect((await ended(ids.object!)).result).toEqual({ error: '[object Object]' });
    for (const id of Object.values(ids)) await post(`/functions/${id}/versions`, { handlerScript: 'async function handleEvent() { return "off"; }' });
  });

  it('a handler returning a value JSON has no text for (a function, a symbol) SUCCEEDS with payload null, as undefined does', async () => {
    const handlers = { fn: 'async function handleEvent() { return () => 1; }', symbol: 'async function handleEvent() { return Symbol("s"); }', none: 'async function handleEvent() {}' };
    const ids = Object.fromEntries(await Promise.all(Object.entries(handlers).map(async ([name, script]) => [name, await deploy('user.sent.message', `returns-${name}`, script)] as const)));
    await sendAsAlice('values');
    for (const id of Object.values(ids)) {
      expect(await ended(id)).toMatchObject({ status: 'SUCCEEDED', result: { payload: null } });
      await post(`/functions/${id}/versions`, { handlerScript: 'async function handleEvent() { return "off"; }' });
    }
  });

  it('a start-session function that throws refuses the session (403); one that returns lets it start', async () => {
    const id = await deploy('user.attempted.start_session', 'gate', 'async function handleEvent(e) { if (e.username === "carol") throw new Error("carol is on leave"); return { ok: e.username }; }');
    const refused = await post('/_sandbox/user-sessions', { username: 'carol' });
    expect(refused.status).toBe(403);
    // decisions.md: the §7 403 body (error, error_description), nothing else.
    expect(refused.json).toEqual({ error: 'access_denied', error_description: 'access is denied: a start-session function refused the session: carol is on leave' });
    expect(refused.headers.get('content-type')).toBe('application/json');
    expect((await post('/_sandbox/user-sessions', { username: 'bob' })).status).toBe(201);
    expect((await ended(id, 2)).result).toEqual({ payload: { ok: 'bob' } });
  });

  it('a start-session attempt by an unknown username runs the functions first: one may create the user, and the session starts', async () => {
    // management-api.md §6.3: the handler receives `username` and `authParams` ("may hold displayName"), and
    // decisions.md gives it getUserExists and createUser: the attempt is the place to create a user on first sign-in.
    await deploy(
      'user.attempted.start_session',
      'provision',
      `async function handleEvent(e, context) {
         const users = context.getUserApi();
         if (!(await users.getUserExists(e.username)).data) await users.createUser({ name: e.username, displayName: e.authParams.displayName, isGuest: false });
         return { provisioned: e.username };
       }`,
    );
    const started = await post('/_sandbox/user-sessions', { username: 'newcomer', authParams: { displayName: 'New Comer' } });
    expect(started.status).toBe(201);
    expect(started.json.user).toMatchObject({ name: 'newcomer', displayName: 'New Comer', presence: { status: 'AVAILABLE', online: true } });
  });

  it('imports run no functions', async () => {
    const id = await deploy('user.sent.message', 'counter', 'async function handleEvent() { return 1; }');
    const job = await t.upload('/imports/messages', [{ type: 'TEXT', channelId: 1, body: 'imported', user: 'alice', idempotencyKey: 'runtime-import-1' }]);
    expect((await t.waitJob(job.json.id)).state).toBe('FINISHED');
    expect((await t.call(`/functions/${id}/invocations`)).json._embedded.invocations).toEqual([]);
  });
});

describe('the runtime persists with --data', () => {
  it('functions, versions, invocations and the runtime settings survive a restart', async () => {
    const { mkdtemp } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dataDir = await mkdtemp(join(tmpdir(), 'chatport-runtime-'));
    const first = await startTestSandbox({ seed: 'demo', dataDir });
    const fn = (await first.call('/runtimes/nodejs/functions', { method: 'POST', body: { type: 'user.sent.message', name: 'kept', initializeAsynchronously: false } })).json;
    await first.call(`/functions/${fn.id}/versions`, { method: 'POST', body: { handlerScript: 'async function handleEvent() { return "kept"; }' } });
    await first.call('/runtimes/nodejs/environment-variables', { method: 'PUT', body: { A: '1' } });
    await first.call('/channels/1/messages', { method: 'POST', body: { type: 'TEXT', body: 'go', user: { username: 'alice' } } });
    for (;;) {
      const list = (await first.call(`/functions/${fn.id}/invocations`)).json._embedded.invocations as Body[];
      if (list[0]?.status === 'SUCCEEDED') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await first.close();
    const second = await startTestSandbox({ dataDir });
    try {
      expect((await second.call(`/functions/${fn.id}`)).json).toMatchObject({ name: 'kept', currentVersionNumber: 1 });
      expect((await second.call(`/functions/${fn.id}/current-version`)).json.handlerScript).toContain('"kept"');
      expect((await second.call(`/functions/${fn.id}/invocations`)).json._embedded.invocations).toEqual([expect.objectContaining({ status: 'SUCCEEDED', result: { payload: 'kept' } })]);
      expect((await second.call('/runtimes/nodejs')).json.environmentVariables).toEqual({ A: '1' });
    } finally {
      await second.close();
    }
  });
});
