import { randomBytes } from 'node:crypto';
import type { SandboxApp } from '../app.js';
import type { Bridge } from './isolate.js';

/**
 * The Management API of the function's own application (decisions.md: `context`), as the host side of the
 * isolate's `context`: each call is an HTTP request to this sandbox with a token of the application, so it
 * meets the same routes, scopes and errors as any client. Requests carry FUNCTION_HEADER: what a function
 * sends does not run functions again (a handler answering every message would otherwise feed itself). Its
 * value is this process's secret, so a client cannot send the header to keep functions from running.
 */
export const FUNCTION_HEADER = 'x-chatport-function';
const FUNCTION_MARK = randomBytes(16).toString('hex');

/** True when the request was sent by a chat function through `context`. */
export const sentByFunction = (headers: Record<string, string | string[] | undefined>): boolean => headers[FUNCTION_HEADER] === FUNCTION_MARK;

export function createContextBridge(app: SandboxApp): Bridge {
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> => {
    const response = await fetch(`${app.baseUrl()}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${app.tokens.issue()}`,
        [FUNCTION_HEADER]: FUNCTION_MARK,
        ...(body === undefined ? {} : { 'content-type': 'application/vnd.chat+json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const json = text === '' ? undefined : (JSON.parse(text) as unknown);
    if (response.status >= 400 && method !== 'HEAD') {
      const said = (json as { message?: string; error?: string } | undefined)?.message ?? (json as { error?: string } | undefined)?.error ?? '';
      throw new Error(`${method} ${path} answered ${response.status}${said ? `: ${said}` : ''}`);
    }
    return { status: response.status, json };
  };
  return {
    getUserExists: async (name) => ({ data: (await call('HEAD', `/users?name=${encodeURIComponent(String(name))}`)).status === 200 }),
    createUser: async (body) => ({ data: (await call('POST', '/users', body)).json }),
    createChannelMember: async (channelId, ref) => ({ data: (await call('POST', `/channels/${String(channelId)}/members`, ref)).json }),
    sendChannelMessage: async (channelId, body) => ({ data: (await call('POST', `/channels/${String(channelId)}/messages`, body)).json }),
  };
}
