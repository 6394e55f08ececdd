import { realNow, realSleep, type Now, type Sleep } from '../shared/async.js';
import { ConfigError } from '../shared/errors.js';
import { parseHttpUrl } from '../shared/http-url.js';
import { createSilentLogger } from '../shared/logger.js';
import { TokenResponse } from '../wire/resources.js';
import { createClientCredentialsProvider } from './auth/client-credentials.js';
import type { TokenInfo, TokenProvider } from './auth/provider.js';
import { createStaticTokenProvider } from './auth/static-token.js';
import { Transport, type CallSpec, type ServerInfo } from './core/transport.js';
import { createFormBody } from './http/body.js';
import { CONNECTION_DEFAULTS, createDispatcher } from './http/dispatcher.js';
import type { HttpResponse } from './http/types.js';
import type { ClientDeps, ClientOptions } from './options.js';
import { createApplicationResource, type ApplicationResource } from './resources/application.js';
import { createChannelsResource, type ChannelsResource } from './resources/channels.js';
import { createExportsResource, type ExportsResource } from './resources/exports.js';
import { createImportsResource, type ImportsResource } from './resources/imports.js';
import { createJobsResource, type JobsResource } from './resources/jobs.js';
import { createMessagesResource, type MessagesResource } from './resources/messages.js';
import { createThreadsResource, type ThreadsResource } from './resources/threads.js';
import { createActivityResource, type ActivityResource } from './resources/activity.js';
import { createAdministrationResource, type AdministrationResource } from './resources/administration.js';
import { createRuntimeResource, type RuntimeResource } from './resources/runtime.js';
import { createRecordsResource, type RecordsResource } from './resources/records.js';
import { createUsersResource, type UsersResource } from './resources/users.js';
import { createRateLimitGate } from './retry/gate.js';
import { createSharedRateLimitGate } from './retry/shared-gate.js';
import { Pacing } from './retry/pacing.js';
import { resolveRetryPolicy } from './retry/policies.js';

export interface ChatportClient {
  /** Facts gathered from responses; `apiVersion` is the last `x-api-version` seen. */
  readonly serverInfo: Readonly<ServerInfo>;
  readonly imports: ImportsResource;
  readonly jobs: JobsResource;
  readonly exports: ExportsResource;
  readonly application: ApplicationResource;
  readonly users: UsersResource;
  readonly channels: ChannelsResource;
  readonly messages: MessagesResource;
  readonly threads: ThreadsResource;
  readonly activity: ActivityResource;
  readonly administration: AdministrationResource;
  readonly runtime: RuntimeResource;
  readonly records: RecordsResource;
  readonly auth: {
    readonly kind: TokenProvider['kind'];
    /** Fetches (or reuses) a token: checks the credentials without calling the API. */
    check(signal?: AbortSignal): Promise<TokenInfo | undefined>;
    /** Scopes and lifetime of the current token, when a token response gave them. */
    describe(): TokenInfo | undefined;
  };
  /** Escape hatch for operations without a resource method; the response body must be consumed. */
  send(spec: CallSpec): Promise<HttpResponse>;
  /** Closes the keep-alive connections. */
  close(): Promise<void>;
}

/** One client's pacing: its own gate, or the one the shards of a run share. */
function pacingOf(options: ClientOptions, deps: { now: Now; sleep: Sleep }): Pacing {
  const share = options.rateLimitShare;
  const gate = share?.gateFile !== undefined ? createSharedRateLimitGate(share.gateFile, deps) : createRateLimitGate(deps);
  return new Pacing(gate, deps, share?.shares ?? 1);
}

/** Builds the one client every stage uses. Options are normalised here, once. */
export function createClient(options: ClientOptions, deps: ClientDeps = {}): ChatportClient {
  refuseNonHttpUrls(options);
  const now = deps.now ?? realNow;
  const sleep = deps.sleep ?? realSleep;
  const logger = deps.logger ?? createSilentLogger();
  const dispatcher = createDispatcher({ ...CONNECTION_DEFAULTS, ...options.connection });
  const transport = new Transport(
    {
      apiUrl: options.apiUrl,
      pathPrefix: options.pathPrefix ?? '',
      maxRedirects: options.maxRedirects ?? 10,
      userAgent: options.userAgent ?? 'chatport',
      policy: resolveRetryPolicy(options.retry),
    },
    { dispatcher, pacing: pacingOf(options, { now, sleep }), sleep, now, random: deps.random ?? Math.random, logger },
  );
  // The token fetch is shared by every waiting call, so no call's signal may stop it; closing the client
  // does, or a fetch every caller gave up on (SIGTERM) would hold the process until its timeouts and retries.
  const closing = new AbortController();
  const auth =
    options.auth.kind === 'static'
      ? createStaticTokenProvider(options.auth.accessToken)
      : createClientCredentialsProvider(options.auth, {
          now,
          logger,
          fetchToken: ({ tokenUrl, basicCredentials }) =>
            transport.sendJson(
              {
                operation: 'get an access token',
                method: 'POST',
                url: new URL(tokenUrl),
                headers: { authorization: `Basic ${basicCredentials}`, accept: 'application/json' },
                body: createFormBody({ grant_type: 'client_credentials' }),
                authenticate: false,
                // Asking for a token twice only mints two tokens.
                retry: 'idempotent',
                signal: closing.signal,
              },
              TokenResponse,
            ),
        });
  transport.useAuth(auth);

  return {
    serverInfo: transport.serverInfo,
    imports: createImportsResource(transport),
    jobs: createJobsResource(transport, { sleep, now, logger }),
    exports: createExportsResource(transport),
    application: createApplicationResource(transport),
    users: createUsersResource(transport),
    channels: createChannelsResource(transport),
    messages: createMessagesResource(transport),
    threads: createThreadsResource(transport),
    activity: createActivityResource(transport),
    administration: createAdministrationResource(transport),
    runtime: createRuntimeResource(transport),
    records: createRecordsResource(transport),
    auth: {
      kind: auth.kind,
      check: async (signal) => {
        await auth.getToken(signal);
        return auth.describe();
      },
      describe: () => auth.describe(),
    },
    send: (spec) => transport.send(spec),
    close: () => {
      if (closing.signal.aborted) return Promise.resolve();
      closing.abort(new Error('the API client was closed'));
      auth.close?.();
      return dispatcher.close();
    },
  };
}

/** A URL that is none is the caller's configuration error (78, as the CLI says it), refused before anything opens. */
function refuseNonHttpUrls(options: ClientOptions): void {
  const apiUrl = parseHttpUrl(options.apiUrl, 'API URL', "the client's apiUrl");
  if (apiUrl instanceof ConfigError) throw apiUrl;
  if (options.auth.kind !== 'client-credentials') return;
  const tokenUrl = parseHttpUrl(options.auth.tokenUrl, 'token URL', "the client's auth.tokenUrl");
  if (tokenUrl instanceof ConfigError) throw tokenUrl;
}
