import { createClient, type ChatportClient } from '../api/index.js';
import type { PipelineConfig } from '../config/index.js';
import { ConfigError } from '../shared/errors.js';
import { clientFlagsOf, resolveClientConfig } from './client-options.js';
import type { CliContext } from './context.js';

/** The API client of a pipeline command: flags first, then the pipeline's api block, then the CHATPORT_* environment. */
export function createPipelineClient(config: PipelineConfig, options: Record<string, unknown>, ctx: CliContext): ChatportClient {
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
  return createClient(clientConfig, { logger: ctx.logger });
}
