import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { Command } from 'commander';
import type { ChatportClient } from '../../api/index.js';
import { UsageError } from '../../shared/errors.js';
import { parseInt64 } from '../../shared/int64.js';
import { stringifyJson } from '../../shared/lossless-json.js';
import { addClientFlags, openClient } from '../client-options.js';
import type { CliContext } from '../context.js';

/**
 * `chatport functions list | deploy <type> <file> | invocations <id>` and `chatport runtime show | env set
 * K=V… | deps set name@version… | init-script <file>`: the runtime work people script (docs/chat-functions.md).
 */

const EVENT_TYPES = ['user.attempted.start_session', 'user.started.chat_session', 'user.sent.message', 'user.received.notification'];

type Options = { json?: boolean; name?: string; [flag: string]: unknown };

/** `work` gets the command's signal for every call, so SIGTERM or Ctrl-C also stops a retry's wait. */
async function withClient(options: Options, ctx: CliContext, work: (client: ChatportClient, call: { signal: AbortSignal }) => Promise<unknown>): Promise<void> {
  const client = openClient(options, ctx);
  try {
    const result = await work(client, { signal: ctx.signal });
    if (result !== undefined) ctx.stdout.write(options.json ? `${stringifyJson(result)}\n` : `${typeof result === 'string' ? result : stringifyJson(result, 2)}\n`);
  } finally {
    await client.close();
  }
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

function idArg(text: string, what: string) {
  const id = parseInt64(text);
  if (id === undefined || id <= 0) throw new UsageError(`${what} must be a positive integer id, not "${text}"`);
  return id;
}

/** Creates the function of `type` named `name` when none exists, then deploys the file as its next version. */
async function deploy(client: ChatportClient, type: string, file: string, name: string, call: { signal: AbortSignal }) {
  if (!EVENT_TYPES.includes(type)) throw new UsageError(`the event type must be one of ${EVENT_TYPES.join(', ')}, not "${type}"`);
  const handlerScript = await readFile(file, 'utf8');
  const existing = (await collect(client.runtime.functions(call))).find((f) => f.type === type && f.name === name);
  const fn = existing ?? (await client.runtime.createFunction({ type, name, initializeAsynchronously: false }, call));
  const version = await client.runtime.deploy(fn.id, handlerScript, call);
  return { function: { id: fn.id, type, name, created: existing === undefined }, version: { id: version.id, versionNumber: version.versionNumber } };
}

export function registerFunctions(program: Command, ctx: CliContext): void {
  const functions = program.command('functions').description('chat functions: list them, deploy a handler, read invocations');
  addClientFlags(functions.command('list').description('every function of the Node.js runtime')).option('--json', 'one line of JSON').action((options: Options) =>
    withClient(options, ctx, async (client, call) => {
      const list = await collect(client.runtime.functions(call));
      if (options.json) return list;
      if (list.length === 0) return 'no functions';
      return list.map((f) => `${String(f.id).padStart(6)}  ${f.type.padEnd(30)} v${f.currentVersionNumber ?? 0}  ${f.enabled === false ? 'disabled' : 'enabled '}  ${f.name}`).join('\n');
    }),
  );
  addClientFlags(
    functions
      .command('deploy')
      .description('deploy a handler (JavaScript or TypeScript defining handleEvent(event, context)) for an event type; creates the function when missing')
      .argument('<type>', EVENT_TYPES.join(' | '))
      .argument('<file>', 'the handler script'),
  )
    .option('--name <name>', 'the function\'s name (default: the file name without its extension)')
    .option('--json', 'one line of JSON')
    .action((type: string, file: string, options: Options) =>
      withClient(options, ctx, async (client, call) => {
        const result = await deploy(client, type, file, options.name ?? basename(file, extname(file)), call);
        return options.json ? result : `${result.function.created ? 'created' : 'updated'} function ${result.function.id} (${result.function.name}, ${type}): version ${result.version.versionNumber} is current`;
      }),
    );
  addClientFlags(functions.command('invocations').description('a function\'s invocations, newest first').argument('<id>', 'function id'))
    .option('--json', 'one line of JSON')
    .action((id: string, options: Options) => withClient(options, ctx, async (client, call) => collect(client.runtime.invocations(idArg(id, 'the function id'), call))));

  const runtime = program.command('runtime').description('the Node.js runtime: dependencies, environment variables, initialization script');
  addClientFlags(runtime.command('show').description('the runtime as the platform holds it')).option('--json', 'one line of JSON').action((options: Options) => withClient(options, ctx, (client, call) => client.runtime.get(call)));
  const env = runtime.command('env').description('environment variables of the runtime (process.env of every handler)');
  addClientFlags(env.command('set').description('replace the environment variables with these').argument('<pairs...>', 'NAME=value …'))
    .option('--json', 'one line of JSON')
    .action((pairs: string[], options: Options) =>
      withClient(options, ctx, (client, call) => {
        const vars: Record<string, string> = {};
        for (const pair of pairs) {
          const at = pair.indexOf('=');
          if (at <= 0) throw new UsageError(`environment variables are NAME=value, not "${pair}"`);
          vars[pair.slice(0, at)] = pair.slice(at + 1);
        }
        return client.runtime.setEnvironmentVariables(vars, call);
      }),
    );
  const deps = runtime.command('deps').description('the runtime\'s dependencies (recorded; the defaults always stay)');
  addClientFlags(deps.command('set').description('replace the dependencies with these').argument('<packages...>', 'name@version …'))
    .option('--json', 'one line of JSON')
    .action((packages: string[], options: Options) =>
      withClient(options, ctx, (client, call) => {
        const list = packages.map((p) => {
          const at = p.lastIndexOf('@');
          if (at <= 0 || at === p.length - 1) throw new UsageError(`a dependency is name@version, not "${p}"`);
          return { name: p.slice(0, at), version: p.slice(at + 1), defaultDependency: false };
        });
        return client.runtime.setDependencies(list, call);
      }),
    );
  addClientFlags(runtime.command('init-script').description('set the initialization script (runs before every handler, in its scope)').argument('<file>', 'the script'))
    .option('--json', 'one line of JSON')
    .action((file: string, options: Options) => withClient(options, ctx, async (client, call) => client.runtime.setInitializationScript(await readFile(file, 'utf8'), call)));
}
