/** Small async helpers shared by every stage. Time is injected so tests never wait on the real clock. */

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;
export type Now = () => number;

export const realNow: Now = () => Date.now();

/** Resolves once the wall clock has reached `at` (ms): a timer can fire a millisecond before Date.now() gets there. */
export async function realSleepUntil(at: number, signal?: AbortSignal): Promise<void> {
  for (let ms = at - Date.now(); ms > 0; ms = at - Date.now()) await realSleep(ms, signal);
}

/** Resolves after `ms`, or rejects with the signal's reason when aborted. */
export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
