import { z } from 'zod';
import type { Route } from '../router.js';
import { clientError, notFound } from '../errors.js';
import { sendJson, type Ctx } from '../http.js';
import { offsetPage } from '../paging.js';
import type { SandboxApp } from '../app.js';
import type { FunctionRec, FunctionVersionRec, RuntimeRec } from '../store.js';
import { DEFAULT_DEPENDENCIES, runtimeOf } from '../runtime/defaults.js';
import { renderFunction, renderInvocation, renderRuntime, renderVersion } from '../runtime/render-runtime.js';
import { checkCompiles } from '../runtime/strip-types.js';
import { pathId, readBody } from './common.js';

/** The chat runtime (management-api.md §4 "Functions, versions, runtime"; decisions.md for methods, paths, scopes). */

const EVENT_TYPES = ['user.attempted.start_session', 'user.started.chat_session', 'user.sent.message', 'user.received.notification'] as const;

const CreateFunction = z.object({
  type: z.enum(EVENT_TYPES),
  name: z.string().min(1).max(255),
  initializeAsynchronously: z.boolean(),
  description: z.string().optional(),
});
const CreateVersion = z.object({ handlerScript: z.string().min(1).max(1_000_000) });
/** §2: name, version and defaultDependency are all required in each item. */
const Dependencies = z.array(z.object({ name: z.string().min(1), version: z.string().min(1), defaultDependency: z.boolean() }));
const EnvironmentVariables = z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string());
const InitializationScript = z.object({ script: z.string() });

const BY_ID = { id: (r: { id: number }) => r.id };

function functionOr404(ctx: Ctx, app: SandboxApp): FunctionRec {
  const fn = app.store.functions.get(pathId(ctx));
  if (!fn) throw notFound();
  return fn;
}

function versionsOf(app: SandboxApp, functionId: number): FunctionVersionRec[] {
  return [...app.store.functionVersions.values()].filter((v) => v.functionId === functionId).sort((a, b) => a.versionNumber - b.versionNumber);
}

/** A script that does not parse, before or after its types are stripped, is refused when deployed, not when it first runs. */
function checkScript(script: string, field: string): void {
  try {
    checkCompiles(script);
  } catch (error) {
    throw clientError(`field '${field}': the script does not parse: ${(error as Error).message}`);
  }
}

function updateRuntime(ctx: Ctx, app: SandboxApp, change: (r: RuntimeRec) => RuntimeRec): void {
  app.store.change({ t: 'runtime', v: change(runtimeOf(app.store.runtime)) });
  sendJson(ctx, 200, renderRuntime(app));
}

export const runtimeRoutes: Route[] = [
  { method: 'GET', path: '/runtimes/nodejs', scopes: ['read:runtime'], handler: (ctx, app) => sendJson(ctx, 200, renderRuntime(app)) },
  {
    method: 'GET',
    path: '/runtimes/nodejs/functions',
    scopes: ['read:runtime', 'read:function'],
    handler: (ctx, app) => sendJson(ctx, 200, offsetPage(ctx, app.baseUrl(), 'functions', [...app.store.functions.values()], (f) => renderFunction(app, f), { ...BY_ID, name: (f: FunctionRec) => f.name })),
  },
  {
    method: 'POST',
    path: '/runtimes/nodejs/functions',
    scopes: ['read:runtime', 'read:function'],
    handler: async (ctx, app) => {
      const body = await readBody(ctx, CreateFunction);
      const fn: FunctionRec = { id: app.store.nextId('function'), type: body.type, name: body.name, enabled: true, initializeAsynchronously: body.initializeAsynchronously, currentVersionNumber: 0, ...(body.description !== undefined ? { description: body.description } : {}) };
      app.store.change({ t: 'fn', v: fn });
      sendJson(ctx, 200, renderFunction(app, fn));
    },
  },
  { method: 'GET', path: '/functions/:id', scopes: ['read:function'], handler: (ctx, app) => sendJson(ctx, 200, renderFunction(app, functionOr404(ctx, app))) },
  {
    method: 'GET',
    path: '/functions/:id/versions',
    scopes: ['read:function', 'read:function_version'],
    handler: (ctx, app) => {
      const fn = functionOr404(ctx, app);
      sendJson(ctx, 200, offsetPage(ctx, app.baseUrl(), 'versions', versionsOf(app, fn.id), (v) => renderVersion(app, v), { ...BY_ID, versionNumber: (v: FunctionVersionRec) => v.versionNumber }));
    },
  },
  {
    method: 'POST',
    path: '/functions/:id/versions',
    scopes: ['read:function', 'create:function_version'],
    handler: async (ctx, app) => {
      const fn = functionOr404(ctx, app);
      const { handlerScript } = await readBody(ctx, CreateVersion);
      checkScript(handlerScript, 'handlerScript');
      const version: FunctionVersionRec = { id: app.store.nextId('version'), functionId: fn.id, versionNumber: fn.currentVersionNumber + 1, handlerScript, createdTime: app.clock() };
      app.store.change({ t: 'fnver', v: version });
      app.store.change({ t: 'fn', v: { ...fn, currentVersionNumber: version.versionNumber } });
      sendJson(ctx, 200, renderVersion(app, version));
    },
  },
  {
    method: 'GET',
    path: '/functions/:id/current-version',
    scopes: ['read:function', 'read:function_version'],
    handler: (ctx, app) => {
      const fn = functionOr404(ctx, app);
      const current = versionsOf(app, fn.id).find((v) => v.versionNumber === fn.currentVersionNumber);
      if (!current) throw notFound();
      sendJson(ctx, 200, renderVersion(app, current));
    },
  },
  {
    method: 'GET',
    path: '/function-versions/:id',
    scopes: ['read:function_version'],
    handler: (ctx, app) => {
      const version = app.store.functionVersions.get(pathId(ctx));
      if (!version) throw notFound();
      sendJson(ctx, 200, renderVersion(app, version));
    },
  },
  {
    method: 'GET',
    path: '/functions/:id/invocations',
    scopes: ['read:function', 'read:function_invocation'],
    handler: (ctx, app) => {
      const fn = functionOr404(ctx, app);
      // Newest first (decisions.md).
      const invocations = [...app.store.invocations.values()].filter((i) => i.functionId === fn.id).sort((a, b) => b.id - a.id);
      sendJson(ctx, 200, offsetPage(ctx, app.baseUrl(), 'invocations', invocations, (i) => renderInvocation(app, i), BY_ID));
    },
  },
  {
    method: 'PUT',
    path: '/runtimes/nodejs/dependencies',
    scopes: ['read:runtime', 'update:runtime'],
    handler: async (ctx, app) => {
      const given = await readBody(ctx, Dependencies);
      // Recorded, not installed; the defaults stay whatever the body says.
      const own = given.filter((d) => !DEFAULT_DEPENDENCIES.some((x) => x.name === d.name)).map((d) => ({ name: d.name, version: d.version, defaultDependency: false }));
      updateRuntime(ctx, app, (r) => ({ ...r, dependencies: [...DEFAULT_DEPENDENCIES, ...own] }));
    },
  },
  {
    method: 'PUT',
    path: '/runtimes/nodejs/environment-variables',
    scopes: ['read:runtime', 'update:runtime'],
    handler: async (ctx, app) => {
      const environmentVariables = await readBody(ctx, EnvironmentVariables);
      updateRuntime(ctx, app, (r) => ({ ...r, environmentVariables }));
    },
  },
  {
    method: 'PUT',
    path: '/runtimes/nodejs/initialization-script',
    scopes: ['read:runtime', 'update:runtime'],
    handler: async (ctx, app) => {
      const { script } = await readBody(ctx, InitializationScript);
      checkScript(script, 'script');
      updateRuntime(ctx, app, (r) => ({ ...r, initializationScript: script }));
    },
  },
];
