import { InvalidArgumentError, type Command } from 'commander';
import { JobFailedError, type Job } from '../../api/index.js';
import type { CliContext } from '../context.js';
import { addClientFlags, openClient } from '../client-options.js';
import { positiveNumber } from '../number-flags.js';
import { parseInt64, type Int64 } from '../../shared/int64.js';
import { stringifyJson } from '../../shared/lossless-json.js';

function positiveInteger(what: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) <= 0 || !Number.isSafeInteger(Number(value)))
      throw new InvalidArgumentError(`${what} must be a positive integer, got "${value}"`);
    return Number(value);
  };
}

/** A job id: a positive int64, exact beyond 2^53. */
function positiveInt64(what: string) {
  return (value: string): Int64 => {
    const id = parseInt64(value);
    if (id === undefined || id <= 0) throw new InvalidArgumentError(`${what} must be a positive integer of at most 19 digits (int64), got "${value}"`);
    return id;
  };
}

function formatJob(job: Job): string {
  return [job.id, job.type, job.state, job.createdTime ?? '-', job.endedTime ?? '-', job.file ?? ''].join('\t').trimEnd();
}

const HEADER = 'ID\tTYPE\tSTATE\tCREATED\tENDED\tFILE';

/** `chatport jobs list|get|wait`: the platform's import and export jobs. */
export function registerJobs(program: Command, ctx: CliContext): void {
  const jobs = program.command('jobs').description("the platform's import and export jobs");

  addClientFlags(jobs.command('list').description('list jobs, newest pages as the API gives them'))
    .option('--running', 'only running jobs')
    .option('--limit <n>', 'stop after this many jobs', positiveInteger('--limit'))
    .option('--json', 'print a JSON array')
    .action(async (options: Record<string, unknown>) => {
      const client = openClient(options, ctx);
      try {
        const found: Job[] = [];
        const limit = (options.limit as number | undefined) ?? Infinity;
        for await (const job of client.jobs.list({ running: options.running === true, signal: ctx.signal })) {
          if (found.length >= limit) break;
          found.push(job);
        }
        ctx.stdout.write(options.json ? `${stringifyJson(found)}\n` : `${[HEADER, ...found.map(formatJob)].join('\n')}\n`);
      } finally {
        await client.close();
      }
    });

  addClientFlags(jobs.command('get').description('show one job').argument('<id>', 'job id', positiveInt64('job id')))
    .option('--json', 'print JSON')
    .action(async (id: Int64, options: Record<string, unknown>) => {
      const client = openClient(options, ctx);
      try {
        const job = await client.jobs.get(id, { signal: ctx.signal });
        ctx.stdout.write(options.json ? `${stringifyJson(job)}\n` : `${HEADER}\n${formatJob(job)}\n`);
      } finally {
        await client.close();
      }
    });

  addClientFlags(
    jobs
      .command('wait')
      .description('wait until a job is FINISHED or FAILED (exit 3 when FAILED, 75 at the deadline)')
      .argument('<id>', 'job id', positiveInt64('job id')),
  )
    .option('--timeout <seconds>', 'give up after this long', positiveNumber('--timeout'), 3600)
    .option('--interval <seconds>', 'first pause between polls; it grows up to 15 s', positiveNumber('--interval'), 1)
    .option('--json', 'print JSON')
    .action(async (id: Int64, options: Record<string, unknown>) => {
      const client = openClient(options, ctx);
      try {
        const job = await client.jobs.wait(id, {
          timeoutMs: (options.timeout as number) * 1000,
          initialIntervalMs: (options.interval as number) * 1000,
          signal: ctx.signal,
          onPoll: (j) => ctx.logger.debug({ jobId: j.id, state: j.state }, 'job polled'),
        });
        ctx.stdout.write(options.json ? `${stringifyJson(job)}\n` : `${HEADER}\n${formatJob(job)}\n`);
        if (job.state === 'FAILED') throw new JobFailedError(job.id, { type: job.type, ...(job.endedTime ? { endedTime: job.endedTime } : {}) });
      } finally {
        await client.close();
      }
    });
}
