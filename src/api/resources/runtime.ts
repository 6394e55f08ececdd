import type { Int64 } from '../../shared/int64.js';
import { ChatFunction, ChatRuntime, FunctionVersion, Invocation, offsetPage } from '../../wire/resources.js';
import type { CallSpec, Transport } from '../core/transport.js';
import { iterateItems, iteratePages } from '../hal/paginate.js';
import { createJsonBody } from '../http/body.js';
import { checkId, checkPageSize, withSignal, type ListOptions } from './common.js';

type Signal = { signal?: AbortSignal };

/** The Node.js chat runtime and its functions (management-api.md §4; decisions.md for methods, paths and scopes). */
export interface RuntimeResource {
  get(options?: Signal): Promise<ChatRuntime>;
  setDependencies(dependencies: Array<{ name: string; version: string; defaultDependency: boolean }>, options?: Signal): Promise<ChatRuntime>;
  setEnvironmentVariables(variables: Record<string, string>, options?: Signal): Promise<ChatRuntime>;
  setInitializationScript(script: string, options?: Signal): Promise<ChatRuntime>;
  functions(options?: ListOptions): AsyncIterable<ChatFunction>;
  getFunction(id: Int64, options?: Signal): Promise<ChatFunction>;
  createFunction(body: { type: string; name: string; initializeAsynchronously: boolean; description?: string }, options?: Signal): Promise<ChatFunction>;
  /** Deploys a version: the next version number, made current. */
  deploy(functionId: Int64, handlerScript: string, options?: Signal): Promise<FunctionVersion>;
  versions(functionId: Int64, options?: ListOptions): AsyncIterable<FunctionVersion>;
  currentVersion(functionId: Int64, options?: Signal): Promise<FunctionVersion>;
  getVersion(versionId: Int64, options?: Signal): Promise<FunctionVersion>;
  /** Newest first. */
  invocations(functionId: Int64, options?: ListOptions): AsyncIterable<Invocation>;
}

const FunctionPage = offsetPage('functions', ChatFunction);
const VersionPage = offsetPage('versions', FunctionVersion);
const InvocationPage = offsetPage('invocations', Invocation);

export function createRuntimeResource(transport: Transport): RuntimeResource {
  const get = (operation: string, path: string, scopes: string[], o: Signal): CallSpec => ({ operation, method: 'GET', path, scopes, retry: 'idempotent', ...withSignal(o.signal) });
  const list = (operation: string, path: string, scopes: string[], o: ListOptions): CallSpec => ({ ...get(operation, path, scopes, o), query: { size: checkPageSize(o.pageSize) } });
  // PUTs replace a whole setting: repeating one is harmless. A POST is repeated only after a 429.
  const send = (operation: string, method: 'PUT' | 'POST', path: string, scopes: string[], body: unknown, o: Signal): CallSpec => ({
    operation, method, path, scopes, body: createJsonBody(body), retry: method === 'PUT' ? 'idempotent' : 'unprocessed', ...withSignal(o.signal),
  });
  const fn = (id: Int64) => `/functions/${checkId('function', id)}`;
  const UPDATE = ['read:runtime', 'update:runtime'];
  return {
    get: (o = {}) => transport.sendJson(get('get the runtime', '/runtimes/nodejs', ['read:runtime'], o), ChatRuntime),
    setDependencies: (deps, o = {}) => transport.sendJson(send('set the runtime dependencies', 'PUT', '/runtimes/nodejs/dependencies', UPDATE, deps, o), ChatRuntime),
    setEnvironmentVariables: (vars, o = {}) => transport.sendJson(send('set the runtime environment variables', 'PUT', '/runtimes/nodejs/environment-variables', UPDATE, vars, o), ChatRuntime),
    setInitializationScript: (script, o = {}) => transport.sendJson(send('set the initialization script', 'PUT', '/runtimes/nodejs/initialization-script', UPDATE, { script }, o), ChatRuntime),
    functions: (o = {}) => iterateItems(iteratePages(transport, list('list functions', '/runtimes/nodejs/functions', ['read:runtime', 'read:function'], o), FunctionPage, 'functions')),
    getFunction: (id, o = {}) => transport.sendJson(get(`get function ${id}`, fn(id), ['read:function'], o), ChatFunction),
    createFunction: (body, o = {}) => transport.sendJson(send('create a function', 'POST', '/runtimes/nodejs/functions', ['read:runtime', 'read:function'], body, o), ChatFunction),
    deploy: (id, handlerScript, o = {}) => transport.sendJson(send(`deploy a version of function ${id}`, 'POST', `${fn(id)}/versions`, ['read:function', 'create:function_version'], { handlerScript }, o), FunctionVersion),
    versions: (id, o = {}) => iterateItems(iteratePages(transport, list(`list versions of function ${id}`, `${fn(id)}/versions`, ['read:function', 'read:function_version'], o), VersionPage, 'versions')),
    currentVersion: (id, o = {}) => transport.sendJson(get(`get the current version of function ${id}`, `${fn(id)}/current-version`, ['read:function', 'read:function_version'], o), FunctionVersion),
    getVersion: (id, o = {}) => transport.sendJson(get(`get function version ${id}`, `/function-versions/${checkId('version', id)}`, ['read:function_version'], o), FunctionVersion),
    invocations: (id, o = {}) => iterateItems(iteratePages(transport, list(`list invocations of function ${id}`, `${fn(id)}/invocations`, ['read:function', 'read:function_invocation'], o), InvocationPage, 'invocations')),
  };
}
