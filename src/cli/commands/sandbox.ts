import { readFileSync } from 'node:fs';
import type { Command} from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import { InputMissingError, UsageError } from '../../shared/errors.js';
import { seededRandom } from '../../shared/seeded-random.js';
import type { FaultRule, SandboxHandle } from '../../sandbox/index.js';
import { parseFaultSpec } from '../../sandbox/fault-spec.js';
import { validateRule } from '../../sandbox/faults.js';
import { connectionEnvFor, exportLines } from '../connection-env.js';
import type { CliContext } from '../context.js';

const FAULT_HELP = `
Faults (repeat --fault; or --faults <file.json> holding an array of rules as in src/sandbox/options.ts):
  --fault '[METHOD] [PATH]=KIND:ARG[,key=value...][@PROBABILITY]'
    POST /imports/**=status:503@0.2          503 on 20% of import uploads
    /jobs/*=status:429,retry-after=3         429 with Retry-After: 3 (retry-after-date=3: as an HTTP date)
    **=rate:100/60s                          100 requests per client per minute, then 429 (add ,http-date)
    POST /imports/messages=drop:mid-body     cut the connection: before-body | mid-body | after-processing
    GET **=delay:250ms                       answer late (ms or s)
    **=redirect:307                          redirect via /_r/<path>; redirect:307,http://127.0.0.1:9999 to another origin
    POST /channels=status:500,times=2        fire twice, then retire
  PATH: '*' matches one segment, '**' any rest.

Ids beyond 2^53 (int64 as platforms with snowflake ids give them):
  --id-base 9007199254741992               every id on the wire (users, channels, messages, jobs) is this
                                           base plus the sandbox's own number, so clients meet ids that a
                                           JavaScript number cannot hold; ids in paths and bodies are read back

Examples:
  chatport sandbox                          # on 127.0.0.1:8787; prints the export lines to paste into another shell
  chatport sandbox --print-env              # stdout: only those export lines (the rest goes to stderr)
  chatport sandbox --print-env --port 0 > sandbox.env &     # in a script: a free port, then
  until [ -s sandbox.env ]; do sleep 0.2; done; . ./sandbox.env   # wait for the lines and load them
  chatport sandbox --seed demo --data .sandbox --client-id me --client-secret my-secret-1234
  curl -s -u "$CHATPORT_CLIENT_ID:$CHATPORT_CLIENT_SECRET" -d grant_type=client_credentials "$CHATPORT_API_URL/oauth/token"
`;

function integer(name: string, min: number) {
  return (raw: string): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${name} must be a whole number >= ${min}`);
    return n;
  };
}

function idBase(raw: string): bigint {
  if (!/^\d{1,19}$/.test(raw) || BigInt(raw) > 2n ** 62n) throw new InvalidArgumentError('--id-base must be a whole number from 0 to 2^62');
  return BigInt(raw);
}

function ratio(raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !(n >= 0 && n <= 1)) throw new InvalidArgumentError('must be within 0..1');
  return n;
}

const FAULT_KINDS = ['status', 'rateLimit', 'drop', 'delay', 'redirect'];
const RULE_SHAPE = `{"fault": {"kind": ${FAULT_KINDS.map((k) => JSON.stringify(k)).join(' | ')}, …}, "method"?, "path"?, "probability"?, "times"?}`;

/** A file's rule the fault engine can read at all; its values are checked by validateRule. */
function isFaultRuleShape(rule: unknown): rule is FaultRule {
  const fault = (rule as { fault?: unknown } | null)?.fault as { kind?: unknown } | null | undefined;
  return typeof rule === 'object' && rule !== null && typeof fault === 'object' && fault !== null && FAULT_KINDS.includes(fault.kind as string);
}

function readFaultFile(path: string): FaultRule[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    // A file that is not there is missing input (66), as for every file chatport reads.
    throw new InputMissingError(`--faults ${path}: ${(error as Error).message}`, { path }, error);
  }
  try {
    const rules = JSON.parse(text) as unknown;
    if (!Array.isArray(rules)) throw new Error('expected a JSON array of fault rules');
    rules.forEach((rule: unknown, i) => {
      if (!isFaultRuleShape(rule)) throw new Error(`rule ${i}: expected an object ${RULE_SHAPE}, found ${JSON.stringify(rule)}`);
      validateRule(rule);
    });
    return rules as FaultRule[];
  } catch (error) {
    throw new UsageError(`--faults ${path}: ${(error as Error).message}`, { path });
  }
}

interface SandboxFlags {
  port: number;
  host: string;
  seed?: string;
  data?: string;
  clientId?: string;
  clientSecret?: string;
  tokenLifetime?: number;
  apiVersion?: string;
  fault: string[];
  faults?: string;
  jobMinDuration?: number;
  jobFailProbability?: number;
  stuckJobs?: boolean;
  itemsPerSecond?: number;
  concurrentJobs?: number;
  exportUrlTtl?: number;
  idBase?: bigint;
  faultSeed?: number;
  printEnv?: boolean;
}

/** What the sandbox prints about itself for people; the last line says how to stop it. */
function describeSandbox(sandbox: SandboxHandle, flags: SandboxFlags, faultCount: number): string[] {
  return [
    `chatport sandbox listening`,
    `  url:           ${sandbox.url}`,
    `  token url:     ${sandbox.tokenUrl}`,
    `  client id:     ${sandbox.credentials.clientId}`,
    `  client secret: ${sandbox.credentials.clientSecret}`,
    `  state:         ${flags.data ? `kept in ${flags.data}` : 'memory only'}${faultCount ? `; ${faultCount} fault rule(s)` : ''}`,
    `Stop with Ctrl-C (SIGINT) or SIGTERM.`,
  ];
}

/** `chatport sandbox`: the local Management API for people; stays up until SIGINT/SIGTERM. */
export function registerSandboxCommand(program: Command, ctx: CliContext): void {
  program
    .command('sandbox')
    .description('run a local stand-in of the Chat Platform Management API (auth, paging, jobs, imports, exports, faults)')
    .option('--port <port>', 'port to listen on (0 picks a free one)', integer('--port', 0), 8787)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--seed <fixture>', 'seed an empty sandbox: a fixture name under fixtures/sandbox/ (e.g. demo) or a JSON file path')
    .option('--data <dir>', 'keep state in this directory across restarts (default: memory only)')
    .option('--client-id <id>', 'OAuth client id the token endpoint accepts (default: random)')
    .addOption(new Option('--client-secret <secret>', 'OAuth client secret (default: random)').env('CHATPORT_SANDBOX_CLIENT_SECRET'))
    .option('--token-lifetime <seconds>', 'access token lifetime in seconds (default 43200)', integer('--token-lifetime', 1))
    .option('--api-version <version>', 'x-api-version header value (default 2.112.3)')
    .option('--fault <spec>', 'inject a fault; repeatable (see below)', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--faults <file>', 'fault rules as a JSON array (src/sandbox/options.ts FaultRule)')
    .option('--job-min-duration <ms>', 'least time every job takes before it ends', integer('--job-min-duration', 0))
    .option('--job-fail-probability <p>', 'probability that any job, import or analytics export, FAILS regardless of its items (exports too, to rehearse `export` and verification failures)', ratio)
    .option('--stuck-jobs', 'import and export jobs never end (stay RUNNING): rehearses the job deadline (import --job-timeout) and a resume that polls the same job again')
    .option('--items-per-second <n>', 'import items processed per second overall, one job after the other, no credit for idle time beyond 50 ms (docs/sandbox.md; default unlimited)', integer('--items-per-second', 1))
    .option('--concurrent-jobs <n>', 'jobs running at once; others wait PENDING (default unlimited)', integer('--concurrent-jobs', 1))
    .option('--export-url-ttl <seconds>', 'lifetime of analytics export download URLs (default 900)', integer('--export-url-ttl', 1))
    .option('--print-env', 'print only the shell export lines (CHATPORT_API_URL, CHATPORT_CLIENT_ID, CHATPORT_CLIENT_SECRET) on stdout, once listening; the rest goes to stderr')
    .option('--id-base <n>', 'add n to every id on the wire, e.g. 9007199254741992 for ids beyond 2^53 (default 0)', idBase)
    .option('--fault-seed <n>', 'seed of fault rolls and failing jobs (default random): the same draws on every start', integer('--fault-seed', 0))
    .addHelpText('after', FAULT_HELP)
    .action(async (flags: SandboxFlags) => {
      let faults: FaultRule[];
      try {
        faults = [...(flags.faults ? readFaultFile(flags.faults) : []), ...flags.fault.map(parseFaultSpec)];
      } catch (error) {
        throw error instanceof TypeError ? new UsageError(error.message) : error;
      }
      // Loaded here, not at start-up: every other command would pay for the sandbox's modules.
      const { startSandbox } = await import('../../sandbox/index.js');
      const sandbox = await startSandbox({
        port: flags.port,
        host: flags.host,
        seed: flags.seed,
        dataDir: flags.data,
        clientId: flags.clientId,
        clientSecret: flags.clientSecret,
        tokenLifetimeSeconds: flags.tokenLifetime,
        apiVersion: flags.apiVersion,
        faults,
        jobs: { minDurationMs: flags.jobMinDuration, failProbability: flags.jobFailProbability, ...(flags.stuckJobs ? { stuck: true } : {}) },
        capacity: { itemsPerSecond: flags.itemsPerSecond, concurrentJobs: flags.concurrentJobs },
        exportUrlTtlSeconds: flags.exportUrlTtl,
        ...(flags.idBase !== undefined ? { idBase: flags.idBase } : {}),
        ...(flags.faultSeed === undefined ? {} : { random: seededRandom(flags.faultSeed) }),
        logger: ctx.logger,
      });
      // For people at a terminal: the secret is shown once, here, on stdout (logs never carry it).
      const env = exportLines(connectionEnvFor(sandbox));
      const about = describeSandbox(sandbox, flags, faults.length);
      if (flags.printEnv) {
        ctx.stderr.write(about.join('\n') + '\n');
        ctx.stdout.write(env);
      } else {
        ctx.stdout.write([...about.slice(0, -1), 'Point chatport at it (paste into another shell):', env.replace(/^/gm, '  ').trimEnd(), about.at(-1), ''].join('\n'));
      }
      await new Promise<void>((resolve) => {
        if (ctx.signal.aborted) return resolve();
        ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      await sandbox.close();
      (flags.printEnv ? ctx.stderr : ctx.stdout).write('chatport sandbox stopped\n');
    });
}
