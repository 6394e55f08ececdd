/**
 * The sandbox: a local Management API (management-api.md + decisions.md) for people and tests.
 *
 * Map: server.ts (per-request pipeline: record → /v1 redirect → faults → route → auth → handler → §7
 * errors) · router.ts · http.ts (headers of wire rule 9, Accept, JSON bodies) · auth.ts (tokens, scopes,
 * /oauth/token) · paging.ts (offset and cursor pages) · faults.ts + fault-spec.ts (rules, CLI syntax) ·
 * jobs.ts (job engine) + capacity.ts (the items-per-second line, docs/sandbox.md) · multipart.ts + message-upload-scan.ts + import-validate.ts + fast-accept.ts +
 * import-job.ts (imports) · exports.ts (CSV exports, download grants) · store.ts (state, indexes, ops) +
 * message-table.ts, byte-arena.ts, idempotency-keys.ts (compact storage, docs/sandbox.md "Memory") · persistence.ts (snapshot + journal) ·
 * render.ts (records → wire JSON) · seed.ts · routes/* (one file per route group, listed in routes/index.ts) ·
 * threads.ts (derived thread ids) · mentions.ts · notify.ts (what a sent message sets off) · notification-log.ts (bounded feeds) · hosted-files.ts ·
 * chat-events.ts + runtime/ (chat functions in isolated-vm).
 * It imports only src/wire and src/shared (lint enforces it).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSilentLogger } from '../shared/logger.js';
import { ChatportError, ConfigError } from '../shared/errors.js';
import { holdSecret } from '../shared/secrets.js';
import type { SandboxApp } from './app.js';
import { TokenStore } from './auth.js';
import { NO_CHAT_EVENTS } from './chat-events.js';
import { createChatRuntime } from './runtime/chat-runtime.js';
import { DEFAULT_HANDLER_LIMITS } from './runtime/defaults.js';
import { Exports } from './exports.js';
import { HostedFiles } from './hosted-files.js';
import { FaultEngine } from './faults.js';
import { JobEngine } from './jobs.js';
import type { RecordedRequest, SandboxHandle, SandboxOptions } from './options.js';
import { openPersistence, type Persistence } from './persistence.js';
import { FileArena, MemoryArena, type ByteArena } from './byte-arena.js';

import { Renderer } from './render.js';
import { Router } from './router.js';
import { SANDBOX_ROUTES } from './routes/index.js';
import { applySeed } from './seed.js';
import { createRequestHandler } from './server.js';
import { Store } from './store.js';
import { WireIds } from './wire-ids.js';

export type { SandboxOptions, SandboxHandle, FaultRule, Fault, RecordedRequest } from './options.js';
export { parseFaultSpec } from './fault-spec.js';

export const SANDBOX_DEFAULTS = {
  host: '127.0.0.1',
  tokenLifetimeSeconds: 43_200,
  apiVersion: '2.112.3',
  exportUrlTtlSeconds: 900,
} as const;

/**
 * Starts the local Management API (see options.ts for every option and its default). State lives in
 * memory; with `dataDir` it is loaded from and journaled to that directory. Resolves once listening.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const logger = options.logger ?? createSilentLogger();
  const clientId = options.clientId ?? `sandbox-${randomBytes(4).toString('hex')}`;
  const clientSecret = options.clientSecret ?? randomBytes(18).toString('base64url');
  // Scrubbed while it serves: a suite or service starting many sandboxes would otherwise scrub every log line against all of them.
  const releaseSecret = holdSecret(clientSecret);
  const tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? SANDBOX_DEFAULTS.tokenLifetimeSeconds;
  const random = options.random ?? Math.random;
  const clock = options.clock ?? Date.now;

  const texts = messageTexts(options.dataDir);
  const store = new Store({ id: 1, name: 'sandbox', key: randomBytes(16).toString('hex'), properties: {}, createdTime: Date.now() }, texts);
  let persistence: Persistence | undefined;
  let loaded = false;
  if (options.dataDir) {
    ({ persistence, loaded } = await openPersistence(options.dataDir, store, logger));
    failInterruptedJobs(store, logger);
  }
  if (options.seed && !loaded) await applySeed(store, options.seed, clock);
  persistence?.flush();

  const exportsDir = options.dataDir ? join(options.dataDir, 'exports') : mkdtempSync(join(tmpdir(), 'chatport-sandbox-'));
  mkdirSync(exportsDir, { recursive: true });
  let baseUrl = '';
  const tokens = new TokenStore(clientId, clientSecret, tokenLifetimeSeconds, clock);
  const jobs = new JobEngine(store, { ...options.jobs }, options.capacity ?? {}, random, logger);
  const ids = new WireIds(options.idBase);
  const app: SandboxApp = {
    store,
    ids,
    render: new Renderer(store, () => baseUrl, ids),
    tokens,
    jobs,
    files: new HostedFiles(options.dataDir ? join(options.dataDir, 'files') : join(exportsDir, '_files'), () => baseUrl),
    exports: new Exports(exportsDir, options.exportUrlTtlSeconds ?? SANDBOX_DEFAULTS.exportUrlTtlSeconds, () => baseUrl, ids, clock),
    logger,
    baseUrl: () => baseUrl,
    flush: () => persistence?.flush(),
    tokenLifetimeSeconds,
    clock,
    chatEvents: NO_CHAT_EVENTS,
  };
  app.chatEvents = createChatRuntime(app, { ...DEFAULT_HANDLER_LIMITS, ...options.functionLimits });
  const router = new Router().add(...SANDBOX_ROUTES);
  const faults = new FaultEngine(options.faults ?? [], random);
  const recorded: RecordedRequest[] = [];
  const apiVersion = options.apiVersion ?? SANDBOX_DEFAULTS.apiVersion;
  const server = createServer({ keepAliveTimeout: 65_000 }, createRequestHandler({ app, router, faults, recorded, apiVersion }));

  const release = async () => {
    await jobs.close();
    // Flushed, not folded into a snapshot: the next start folds it anyway, and a snapshot of a large
    // rehearsal takes minutes, longer than a container's stop grace period.
    persistence?.flush();
    texts.close();
    if (!options.dataDir) rmSync(exportsDir, { recursive: true, force: true });
    releaseSecret();
  };
  try {
    await listen(server, options.port ?? 0, options.host ?? SANDBOX_DEFAULTS.host);
  } catch (error) {
    await release();
    throw error;
  }
  const address = server.address() as AddressInfo;
  baseUrl = `http://${linkHost(address)}:${address.port}`;
  logger.info({ url: baseUrl, clientId, persisted: options.dataDir !== undefined }, 'sandbox listening');

  let closed: Promise<void> | undefined;
  return {
    url: baseUrl,
    tokenUrl: `${baseUrl}/oauth/token`,
    credentials: { clientId, clientSecret },
    issueToken: (o = {}) => tokens.issue(o.scopes, o.lifetimeSeconds),
    setFaults: (rules) => faults.set(rules),
    setJobOptions: (o) => jobs.setOptions(o),
    requests: () => recorded.map((r) => ({ ...r, headers: { ...r.headers } })),
    clearRequests: () => void recorded.splice(0),
    close: () =>
      (closed ??= (async () => {
        server.closeAllConnections();
        await jobs.close();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await release();
      })()),
  };
}

/**
 * Listens, or says why not as a ChatportError: a port another process holds is no bug of chatport's (exit
 * 75, retry or choose another port), nor is a host that is not an address of this machine (exit 78).
 */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const where = `${host}:${port}`;
      if (error.code === 'EADDRINUSE') reject(new ChatportError(`the sandbox cannot listen on ${where}: another process holds that port; choose another port (0 picks a free one)`, { code: 'SANDBOX_PORT_IN_USE', transient: true, details: { host, port }, cause: error }));
      else if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') reject(new ConfigError(`the sandbox cannot listen on ${where}: ${host} is not an address of this machine`, { host, port }, error));
      else reject(error);
    });
    server.listen(port, host, () => resolve());
  });
}

/** The messages' texts under `--data`: a cache of the journal's, rewritten at every start. */
const MESSAGE_TEXTS_FILE = 'message-texts.bin';

/**
 * Where messages' texts live: in memory, or with `--data` in a file there (rebuilt from the journal at each
 * start), so a large rehearsal keeps only their places in memory (docs/sandbox.md "Memory").
 */
function messageTexts(dataDir: string | undefined): ByteArena {
  if (!dataDir) return new MemoryArena();
  mkdirSync(dataDir, { recursive: true });
  return new FileArena(join(dataDir, MESSAGE_TEXTS_FILE));
}

/** Links must name an address clients can reach: a wildcard listen address becomes loopback. */
function linkHost(address: AddressInfo): string {
  if (address.address === '0.0.0.0' || address.address === '::') return '127.0.0.1';
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}

/** Uploaded files are not kept across restarts, so jobs a restart interrupted end FAILED (and say why in the log). */
function failInterruptedJobs(store: Store, logger: SandboxApp['logger']): void {
  for (const job of store.jobs.values()) {
    if (job.state !== 'PENDING' && job.state !== 'RUNNING') continue;
    store.change({ t: 'job', v: { ...job, state: 'FAILED', endedTime: Date.now() } });
    logger.warn({ jobId: job.id, type: job.type }, 'sandbox job FAILED: interrupted by a sandbox restart');
  }
}
