import { join } from 'node:path';
import { createClient, type ChatportClient, type ClientOptions } from '../api/index.js';
import type { PipelineConfig, ShardSpec } from '../config/index.js';
import { ConfigError } from '../shared/errors.js';
import { clientFlagsOf, resolveClientConfig } from './client-options.js';
import type { CliContext } from './context.js';

/** The API client of a pipeline command: flags first, then the pipeline's api block, then the CHATPORT_* environment. */
export function createPipelineClient(config: PipelineConfig, options: Record<string, unknown>, ctx: CliContext, stateDir?: string): ChatportClient {
  const flags = clientFlagsOf(options);
  const api = config.api;
  const clientConfig = resolveClientConfig(
    {
      apiUrl: flags.apiUrl ?? api?.url,
      // The token URL goes with its API URL: --api-url alone never takes the file's token URL.
      tokenUrl: flags.apiUrl !== undefined ? flags.tokenUrl : (flags.tokenUrl ?? (api?.url ? api.tokenUrl : undefined)),
      clientId: flags.clientId ?? api?.clientId,
      clientSecret: api?.clientSecret,
      pathPrefix: flags.pathPrefix ?? (api?.pathPrefix || undefined),
    },
    ctx.env,
  );
  if (clientConfig instanceof ConfigError) throw clientConfig;
  return createClient(config.shard ? { ...clientConfig, ...shardClientOptions(config.shard, stateDir ?? config.state) } : clientConfig, { logger: ctx.logger });
}

/**
 * A shard's client shares the platform's limit with the other shards: it probes N times less often, and
 * Retry-After windows go through `<state>/rate-gate.json` when the shards share the state volume. Its
 * User-Agent names the shard, so the platform's logs tell the shards apart.
 */
export function shardClientOptions(shard: ShardSpec, stateDir: string): Partial<ClientOptions> {
  return { userAgent: `chatport (shard ${shard.index}/${shard.count})`, rateLimitShare: { shares: shard.count, gateFile: join(stateDir, 'rate-gate.json') } };
}
