import { subscribe, unsubscribe } from 'node:diagnostics_channel';

/** One event of this process's HTTP client (undici), in the order the client saw them. */
export type WireEvent =
  | { kind: 'sent'; at: number; method: string; path: string }
  | { kind: 'answered'; at: number; method: string; path: string; status: number; retryAfter?: string }
  /** The answer's body has been read to its end (`of`: index of its `answered` event). */
  | { kind: 'read'; at: number; of: number };

interface UndiciRequest {
  method: string;
  path: string;
}

/**
 * Records, from undici's diagnostics channels, when each request was handed to undici (`sent`: one that
 * then waits there for a connection was decided before), when each answer's head arrived and when its body
 * was read to the end, as the client saw them. Order, not duration, is what tests judge with it: a request
 * handed over after an answer was read cannot have been on its way before it.
 */
export function recordClientWire(): { events: WireEvent[]; stop(): void } {
  const events: WireEvent[] = [];
  const answerOf = new WeakMap<object, number>();
  const onSent = (message: unknown) => {
    const { request } = message as { request: UndiciRequest };
    events.push({ kind: 'sent', at: Date.now(), method: request.method, path: request.path });
  };
  const onAnswered = (message: unknown) => {
    const { request, response } = message as { request: UndiciRequest; response: { statusCode: number; headers: Buffer[] } };
    let retryAfter: string | undefined;
    for (let i = 0; i < response.headers.length; i += 2)
      if (response.headers[i]!.toString('latin1').toLowerCase() === 'retry-after') retryAfter = response.headers[i + 1]!.toString('latin1');
    answerOf.set(request, events.length);
    events.push({ kind: 'answered', at: Date.now(), method: request.method, path: request.path, status: response.statusCode, ...(retryAfter === undefined ? {} : { retryAfter }) });
  };
  const onRead = (message: unknown) => {
    const of = answerOf.get((message as { request: object }).request);
    if (of !== undefined) events.push({ kind: 'read', at: Date.now(), of });
  };
  subscribe('undici:request:create', onSent);
  subscribe('undici:request:headers', onAnswered);
  subscribe('undici:request:trailers', onRead);
  return {
    events,
    stop() {
      unsubscribe('undici:request:create', onSent);
      unsubscribe('undici:request:headers', onAnswered);
      unsubscribe('undici:request:trailers', onRead);
    },
  };
}
