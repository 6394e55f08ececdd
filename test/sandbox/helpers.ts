import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/index.js';

/**
 * Response bodies in these tests are checked against literal JSON written from the description, so they
 * are deliberately untyped here.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type Body = any;

/** A started sandbox plus small helpers that speak HTTP to it the way a client would. */
export interface TestSandbox {
  sandbox: SandboxHandle;
  token: string;
  url: string;
  /** Fetch with the bearer token (unless `token: null`); returns status, headers and parsed JSON (if any). */
  call(path: string, init?: CallInit): Promise<Reply>;
  /** multipart/form-data upload of `items` as the part `file` (a Blob, so redirects can re-send it). */
  upload(path: string, items: unknown, init?: CallInit): Promise<Reply>;
  /** Polls a job until FINISHED or FAILED. */
  waitJob(id: number): Promise<Body>;
  close(): Promise<void>;
}

export interface CallInit {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  token?: string | null;
  redirect?: 'follow' | 'manual' | 'error';
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: Body;
}

export async function toReply(response: Response): Promise<Reply> {
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

export async function fetchToken(sandbox: SandboxHandle, scope?: string): Promise<Reply> {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (scope !== undefined) form.set('scope', scope);
  const response = await fetch(sandbox.tokenUrl, {
    method: 'POST',
    headers: { authorization: basic(sandbox.credentials.clientId, sandbox.credentials.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  return toReply(response);
}

export async function startTestSandbox(options: SandboxOptions = {}): Promise<TestSandbox> {
  const sandbox = await startSandbox({ port: 0, ...options });
  const token = (await fetchToken(sandbox)).json.access_token as string;
  const absolute = (path: string) => (path.startsWith('http') ? path : `${sandbox.url}${path}`);
  const authHeaders = (init: CallInit): Record<string, string> => {
    const t = init.token === undefined ? token : init.token;
    return t === null ? {} : { authorization: `Bearer ${t}` };
  };
  const call = async (path: string, init: CallInit = {}): Promise<Reply> => {
    const headers: Record<string, string> = { ...authHeaders(init), ...init.headers };
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
      headers['content-type'] ??= 'application/vnd.chat+json';
    }
    return toReply(await fetch(absolute(path), { method: init.method ?? 'GET', headers, body, redirect: init.redirect }));
  };
  const upload = async (path: string, items: unknown, init: CallInit = {}): Promise<Reply> => {
    // Built by hand as one Blob: Node 20's fetch re-encodes a FormData body on a 307 under the old
    // boundary (undici #4065), while a Blob is re-sent byte for byte (docs/dependencies.md).
    const boundary = `----sandbox-test-${Math.random().toString(16).slice(2)}`;
    const json = typeof items === 'string' ? items : JSON.stringify(items);
    const body = new Blob([
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="items.json"\r\nContent-Type: application/json\r\n\r\n`,
      json,
      `\r\n--${boundary}--\r\n`,
    ]);
    const headers = { ...authHeaders(init), 'content-type': `multipart/form-data; boundary=${boundary}`, ...init.headers };
    return toReply(await fetch(absolute(path), { method: 'POST', headers, body, redirect: init.redirect }));
  };
  const waitJob = async (id: number) => {
    for (let i = 0; i < 500; i++) {
      const reply = await call(`/jobs/${id}`);
      if (reply.json.state === 'FINISHED' || reply.json.state === 'FAILED') return reply.json as Body;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`job ${id} did not end`);
  };
  return { sandbox, token, url: sandbox.url, call, upload, waitJob, close: () => sandbox.close() };
}

/** Any value: used in literal expectations for generated ids, times, tokens. */
export const ISO = expectIso();
function expectIso() {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
}

/** Deep check that no value anywhere is null (wire rule 3). */
export function findNull(value: unknown, path = '$'): string | undefined {
  if (value === null) return path;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = findNull(v, `${path}[${i}]`);
      if (found) return found;
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const found = findNull(v, `${path}.${k}`);
      if (found) return found;
    }
  }
  return undefined;
}
