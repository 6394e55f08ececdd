import type { SandboxApp } from '../app.js';
import type { FunctionRec, FunctionVersionRec, InvocationRec } from '../store.js';
import { RUNTIME_VERSION, runtimeOf } from './defaults.js';

/** The runtime's resources on the wire (management-api.md §2 "Chat function, version, invocation", "Chat runtime"). */

const RUNTIME_ID = 1;
const link = (href: string) => ({ href });

export function renderRuntime(app: SandboxApp): Record<string, unknown> {
  const b = app.baseUrl();
  const runtime = runtimeOf(app.store.runtime);
  return {
    id: app.ids.toWire(RUNTIME_ID),
    type: 'NODEJS',
    version: RUNTIME_VERSION,
    dependencies: runtime.dependencies,
    initializationScript: { script: runtime.initializationScript },
    environmentVariables: runtime.environmentVariables,
    _links: { self: link(`${b}/runtimes/nodejs`), functions: link(`${b}/runtimes/nodejs/functions`) },
  };
}

export function renderFunction(app: SandboxApp, fn: FunctionRec): Record<string, unknown> {
  const b = app.baseUrl();
  const id = app.ids.toWire(fn.id);
  return {
    id,
    type: fn.type,
    runtime: { id: app.ids.toWire(RUNTIME_ID), type: 'NODEJS', version: RUNTIME_VERSION },
    name: fn.name,
    ...(fn.description !== undefined ? { description: fn.description } : {}),
    enabled: fn.enabled,
    currentVersionNumber: fn.currentVersionNumber,
    _links: {
      self: link(`${b}/functions/${id}`),
      versions: link(`${b}/functions/${id}/versions`),
      currentVersion: link(`${b}/functions/${id}/current-version`),
      invocations: link(`${b}/functions/${id}/invocations`),
    },
  };
}

export function renderVersion(app: SandboxApp, v: FunctionVersionRec): Record<string, unknown> {
  const b = app.baseUrl();
  const id = app.ids.toWire(v.id);
  return { id, versionNumber: v.versionNumber, handlerScript: v.handlerScript, _links: { self: link(`${b}/function-versions/${id}`), function: link(`${b}/functions/${app.ids.toWire(v.functionId)}`) } };
}

export function renderInvocation(app: SandboxApp, i: InvocationRec): Record<string, unknown> {
  const b = app.baseUrl();
  return {
    id: app.ids.toWire(i.id),
    versionNumber: i.versionNumber,
    args: i.args,
    status: i.status,
    ...(i.result ? { result: i.result } : {}),
    createdTime: new Date(i.createdTime).toISOString(),
    _links: { function: link(`${b}/functions/${app.ids.toWire(i.functionId)}`) },
  };
}
