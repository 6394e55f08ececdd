/**
 * The seam between what happens in the sandbox and the chat functions that react to it (decisions.md
 * "Chat functions and the runtime"). Routes call `app.chatEvents.fire(type, event)` when an event happens
 * through the API or the `/_sandbox/` surface (never for imports); the runtime (src/sandbox/runtime)
 * supplies the implementation that runs each enabled function's current version.
 */

export type ChatEventType =
  | 'user.attempted.start_session'
  | 'user.started.chat_session'
  | 'user.sent.message'
  | 'user.received.notification';

/** What one function made of an event: FAILED when it threw, timed out or ran out of memory. */
export interface ChatEventOutcome {
  functionId: number;
  status: 'SUCCEEDED' | 'FAILED';
  /** The thrown error's message when FAILED. */
  error?: string;
}

export interface ChatEvents {
  /** Runs every enabled function of `type` once on `event`; resolves when all have ended. */
  fire(type: ChatEventType, event: Record<string, unknown>): Promise<ChatEventOutcome[]>;
  /** Whether any function would run for `type`: events are rendered only then (a reply in a channel of 200 members is 199 notifications). */
  handles(type: ChatEventType): boolean;
}

/** No functions deployed anywhere: nothing runs. */
export const NO_CHAT_EVENTS: ChatEvents = { fire: () => Promise.resolve([]), handles: () => false };
