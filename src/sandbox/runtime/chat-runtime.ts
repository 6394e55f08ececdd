import pLimit, { type LimitFunction } from 'p-limit';
import type { SandboxApp } from '../app.js';
import type { ChatEventOutcome, ChatEventType, ChatEvents } from '../chat-events.js';
import type { FunctionRec, InvocationRec } from '../store.js';
import { createContextBridge } from './context-bridge.js';
import { runtimeOf, type HandlerLimits } from './defaults.js';
import { runHandler } from './isolate.js';
import { stripTypes } from './strip-types.js';

/**
 * The chat runtime behind app.chatEvents: when an event happens, every enabled function of its type with a
 * deployed version runs once, its invocation recorded RUNNING and then SUCCEEDED (`result.payload`: what
 * the handler returned) or FAILED (`result.error`: it threw, timed out, or ran out of memory). At most
 * `limits.concurrent` handlers run at once; the others wait RUNNING, their time limit not yet started.
 */
export function createChatRuntime(app: SandboxApp, limits: HandlerLimits): ChatEvents {
  const functionsFor = (type: ChatEventType) => [...app.store.functions.values()].filter((f) => f.enabled && f.type === type && f.currentVersionNumber > 0);
  const slots = pLimit(limits.concurrent);
  return {
    async fire(type: ChatEventType, event: Record<string, unknown>): Promise<ChatEventOutcome[]> {
      return Promise.all(functionsFor(type).map((fn) => invoke(app, fn, event, limits, slots)));
    },
    handles: (type) => functionsFor(type).length > 0,
  };
}

async function invoke(app: SandboxApp, fn: FunctionRec, event: Record<string, unknown>, limits: HandlerLimits, slots: LimitFunction): Promise<ChatEventOutcome> {
  const version = [...app.store.functionVersions.values()].find((v) => v.functionId === fn.id && v.versionNumber === fn.currentVersionNumber);
  const running: InvocationRec = { id: app.store.nextId('invocation'), functionId: fn.id, versionNumber: fn.currentVersionNumber, args: event, status: 'RUNNING', createdTime: app.clock() };
  app.store.change({ t: 'invoc', v: running });
  const runtime = runtimeOf(app.store.runtime);
  let outcome;
  try {
    if (!version) throw new Error(`version ${fn.currentVersionNumber} of function ${fn.id} is missing`);
    const run = { script: stripTypes(version.handlerScript), initializationScript: stripTypes(runtime.initializationScript), env: runtime.environmentVariables, event, bridge: createContextBridge(app), limits };
    outcome = await slots(() => runHandler(run));
  } catch (error) {
    outcome = { ok: false as const, error: error instanceof Error ? error.message : String(error) };
  }
  const ended: InvocationRec = { ...running, status: outcome.ok ? 'SUCCEEDED' : 'FAILED', result: outcome.ok ? { payload: outcome.payload } : { error: outcome.error } };
  app.store.change({ t: 'invoc', v: ended });
  if (!outcome.ok) app.logger.warn({ functionId: fn.id, invocationId: ended.id, error: outcome.error }, 'chat function FAILED');
  return { functionId: fn.id, status: ended.status === 'SUCCEEDED' ? 'SUCCEEDED' : 'FAILED', ...(outcome.ok ? {} : { error: outcome.error }) };
}
