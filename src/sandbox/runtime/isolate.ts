import type IsolatedVm from 'isolated-vm';
import type { HandlerLimits } from './defaults.js';

type Ivm = typeof IsolatedVm;
let loaded: Promise<Ivm> | undefined;

/**
 * isolated-vm is a native addon, built at install for the Node that installs it (v5 supports Node 18 to 22;
 * the package is optional so an install on another Node still succeeds). Loaded on the first run, so a
 * sandbox without it serves everything else, and a handler then fails with the reason.
 */
function loadIsolatedVm(): Promise<Ivm> {
  loaded ??= import('isolated-vm').then(
    (m) => (m as { default?: Ivm }).default ?? (m as unknown as Ivm),
    (error: unknown) => {
      loaded = undefined;
      throw new Error(`chat functions need the isolated-vm package, which is not available on Node ${process.versions.node}: ${(error as Error).message.split('\n')[0]}`);
    },
  );
  return loaded;
}

/**
 * Runs one handler in its own V8 isolate (isolated-vm): no file system, no `require`, no host `process`,
 * no network; only what `bridge` hands in. A memory bound is the isolate's own limit; the time limit is a
 * host timer that disposes the isolate, which stops a handler however it loops (synchronously or across
 * awaits). Why isolated-vm and not node:vm: docs/chat-functions.md.
 */

/** Host functions the handler's `context` calls; each resolves to JSON-copyable data. */
export type Bridge = Record<string, (...args: unknown[]) => Promise<unknown>>;

export interface HandlerRun {
  script: string;
  initializationScript: string;
  env: Record<string, string>;
  event: unknown;
  bridge: Bridge;
  limits: HandlerLimits;
}

export type HandlerOutcome = { ok: true; payload: unknown } | { ok: false; error: string };

/**
 * Inside the isolate: `process` (env only) is set on the global, as Node has it; then a strict closure builds
 * `context` on the bridge's reference and runs the initialization script and the handler as the body of one
 * `new Function` (their top-level names are theirs: a handler may declare its own `call` or `context`), and
 * calls `handleEvent`. Strict so that the handler cannot pull the reference out of its caller (`arguments`,
 * `caller`, stack frames): with it, it could call the host with any name. The closure answers one string,
 * `P` + the payload's JSON or `E` + the reason, and never throws: a thrown value that loops when read (a
 * getter, a Proxy) is read here, where the time limit stops it; isolated-vm reads it where nothing can.
 * What it uses is taken before the handler's code runs, which may replace any global.
 */
const SET_PROCESS = `'use strict';
Object.defineProperty(globalThis, 'process', { value: Object.freeze({ env: Object.freeze(JSON.parse($0)) }), writable: true, configurable: true });`;

const INVOKE = `'use strict';
const [bridge, userCode, eventJson] = [$1, $2, $0];
const { stringify, parse } = JSON;
const [freeze, makeFunction, toString, ErrorClass, PromiseClass, then] = [Object.freeze, Function, String, Error, Promise, Promise.prototype.then];
const call = (name, args) => then.call(bridge.apply(undefined, [name, stringify(args)], { arguments: { copy: true }, result: { promise: true, copy: true } }), (text) => parse(text));
const context = freeze({
  getUserApi: () => ({
    getUserExists: (name) => call('getUserExists', [name]),
    createUser: (body) => call('createUser', [body]),
  }),
  getChannelApi: () => ({
    createChannelMember: (channelId, ref) => call('createChannelMember', [channelId, ref]),
    sendChannelMessage: (channelId, body) => call('sendChannelMessage', [channelId, body]),
  }),
});
const reason = (thrown) => {
  try {
    const said = thrown instanceof ErrorClass ? thrown.message : thrown;
    return typeof said === 'string' ? said : toString(said);
  } catch {
    return 'the handler threw a value that cannot be read';
  }
};
// A value JSON has no text for (undefined, a function, a symbol) is null, as inside arrays.
const asText = (payload) => {
  const text = stringify(payload);
  return typeof text === 'string' ? text : 'null';
};
const run = () => {
  const handleEvent = makeFunction(userCode + "\\n;return typeof handleEvent === 'function' ? handleEvent : undefined;")();
  if (typeof handleEvent !== 'function') throw new ErrorClass('the handler script defines no function handleEvent(event, context)');
  return handleEvent(parse(eventJson), context);
};
const answer = (text) => (typeof text === 'string' ? text : 'Ethe answer of the handler cannot be read');
return then.call(then.call(new PromiseClass((resolve) => resolve(run())), (payload) => 'P' + asText(payload)), answer, (thrown) => 'E' + reason(thrown));`;

/**
 * The host side of `context`. Settles a turn later, never at once: isolated-vm leaves a promise that is
 * already rejected when a Reference's function returns it unhandled in the host, which ends the process.
 */
function bridgeReference(ivm: Ivm, bridge: Bridge): IsolatedVm.Reference {
  return new ivm.Reference((name: string, argsJson: string) =>
    Promise.resolve().then(async () => {
      const fn = Object.hasOwn(bridge, name) ? bridge[name] : undefined;
      if (!fn) throw new Error(`context has no ${name}`);
      return JSON.stringify(await fn(...(JSON.parse(argsJson) as unknown[])));
    }),
  );
}

export async function runHandler(run: HandlerRun): Promise<HandlerOutcome> {
  let ivm: Ivm;
  try {
    ivm = await loadIsolatedVm();
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
  const isolate = new ivm.Isolate({ memoryLimit: run.limits.memoryMb });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (!isolate.isDisposed) isolate.dispose();
  }, run.limits.timeoutMs);
  try {
    const context = await isolate.createContext();
    await context.evalClosure(SET_PROCESS, [JSON.stringify(run.env)]);
    const args = [JSON.stringify(run.event), bridgeReference(ivm, run.bridge), `${run.initializationScript}\n${run.script}`];
    const text = (await context.evalClosure(INVOKE, args, { result: { promise: true, copy: true } })) as string;
    return text.startsWith('P') ? { ok: true, payload: JSON.parse(text.slice(1)) } : { ok: false, error: text.slice(1) };
  } catch (error) {
    if (timedOut) return { ok: false, error: `the handler ran longer than its time limit (${run.limits.timeoutMs} ms) and was stopped` };
    const message = error instanceof Error ? error.message : String(error);
    if (/memory limit/i.test(message) || isolate.isDisposed) return { ok: false, error: `the handler went over its memory limit (${run.limits.memoryMb} MB) and was stopped` };
    return { ok: false, error: message };
  } finally {
    clearTimeout(timer);
    if (!isolate.isDisposed) isolate.dispose();
  }
}
