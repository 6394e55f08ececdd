import type { Command } from 'commander';

/**
 * The "Examples:" section of each command's --help, by command path. Kept in one place so that a test can
 * check that every command has one; a command that adds its own help text after the options (`sandbox`)
 * keeps that instead.
 */
const EXAMPLES: Record<string, string[]> = {
  '': [
    'chatport demo                                   # everything on a built-in sandbox (npm start)',
    'chatport sandbox --print-env --port 0 > sandbox.env &   # see README, "Your first import"',
    'chatport import pipelines/csv-example.yaml',
    'chatport export all --to out/ --format parquet --date yesterday',
    'chatport import --help                          # each command has its own examples',
  ],
  demo: ['chatport demo                                   # the sandbox, an import, a Slack migration, an export', 'chatport demo --state .demo                     # keep the run folders to look at'],
  import: [
    'chatport import pipelines/csv-example.yaml      # with CHATPORT_API_URL, _CLIENT_ID, _CLIENT_SECRET set',
    'chatport import crm.yaml --dry-run              # the chunks and the report, nothing uploaded',
    'chatport import crm.yaml                        # again after a crash or Ctrl-C: resumes the unfinished run',
    'chatport import crm.yaml --restart --max-rejects 100 --json > report.json',
    'chatport import crm.yaml --api-url https://chat.example.com/api   # token from https://chat.example.com/oauth/token',
    'chatport import crm.yaml --limit 200             # a trial on the first 200 records of each stage',
  ],
  functions: ['chatport functions deploy user.sent.message handler.ts   # creates the function, deploys version 1', 'chatport functions list', 'chatport functions invocations 1 --json'],
  'functions list': ['chatport functions list', 'chatport functions list --json'],
  'functions deploy': ['chatport functions deploy user.sent.message handler.ts', 'chatport functions deploy user.attempted.start_session gate.js --name gate --json'],
  'functions invocations': ['chatport functions invocations 1', 'chatport functions invocations 1 --json > invocations.json'],
  runtime: ['chatport runtime show', 'chatport runtime env set GREETING=hello', 'chatport runtime deps set lodash@4.17.21', 'chatport runtime init-script init.js'],
  'runtime show': ['chatport runtime show', 'chatport runtime show --json'],
  'runtime env': ['chatport runtime env set GREETING=hello', 'chatport runtime env set GREETING=hello TEAM=ops'],
  'runtime env set': ['chatport runtime env set GREETING=hello', 'chatport runtime env set GREETING=hello TEAM=ops --json'],
  'runtime deps': ['chatport runtime deps set lodash@4.17.21', 'chatport runtime deps set lodash@4.17.21 dayjs@1.11.13'],
  'runtime deps set': ['chatport runtime deps set lodash@4.17.21', 'chatport runtime deps set lodash@4.17.21 dayjs@1.11.13 --json'],
  'runtime init-script': ['chatport runtime init-script init.js', 'chatport runtime init-script init.ts --json'],
  api: [
    'chatport api GET /users --paginate                # every user, all pages, one JSON array',
    'chatport api POST /channels --data @channel.json  # PATCH bodies go as merge patches',
    'chatport api POST /imports/users --form file=@users.json',
  ],
  validate: ['chatport validate pipelines/csv-example.yaml     # offline: counts and each problem at file:line', 'chatport validate crm.yaml --show 50 --out rejects/ --json'],
  verify: [
    'chatport verify pipelines/csv-example.yaml       # exit 0 when the platform holds exactly the source',
    'chatport verify crm.yaml --sample 5000 --json     # 5000 messages compared in full (200 by default)',
    'chatport verify crm.yaml --state /data/chatport/crm --shards 4   # a run split over 4 shards, as one',
  ],
  status: ['chatport status pipelines/csv-example.yaml', 'chatport status crm.yaml --state /data/chatport/crm --json', 'chatport status crm.yaml --state /data/chatport/crm --shards 4   # every shard, and the run as one'],
  schema: [
    'chatport schema > pipeline.schema.json          # import pipeline files; then in the YAML file:',
    '  # yaml-language-server: $schema=./pipeline.schema.json',
    'chatport schema --export > export-pipeline.schema.json   # export pipeline files (kind: export)',
  ],
  ping: ['chatport ping                                   # with CHATPORT_API_URL, _CLIENT_ID, _CLIENT_SECRET set', 'chatport ping --api-url http://127.0.0.1:8787 --json'],
  jobs: ['chatport jobs list --running', 'chatport jobs get 42', 'chatport jobs wait 42 --timeout 600 && echo finished'],
  'runs list': ['chatport runs list crm.yaml                     # id, start, status, counts, size on disk', 'chatport runs list --state /data/chatport/crm --json'],
  'runs show': ['chatport runs show crm.yaml                     # the latest run\'s report', 'chatport runs show crm.yaml 01JD2               # a run by (the start of) its id'],
  'runs prune': ['chatport runs prune crm.yaml --keep 5           # the five newest finished runs stay', 'chatport runs prune crm.yaml --older-than 7d --dry-run'],
  'jobs list': ['chatport jobs list', 'chatport jobs list --running --json'],
  'jobs get': ['chatport jobs get 42', 'chatport jobs get 42 --json'],
  'jobs wait': ['chatport jobs wait 42                           # exit 0 FINISHED, 3 FAILED', 'chatport jobs wait 42 --timeout 600 --interval 2'],
  migrate: ['chatport migrate slack export.zip', 'chatport migrate discord ./discord-export/', 'chatport migrate mattermost export.jsonl --dry-run'],
  'migrate slack': [
    'chatport migrate slack export.zip               # = SLACK_EXPORT=export.zip chatport import pipelines/slack.yaml',
    'chatport migrate slack ./slack-export/ --dry-run --json',
    'chatport migrate slack export.zip --state /data/chatport/slack   # rerun the same command to resume',
  ],
  'migrate discord': [
    'chatport migrate discord ./discord-export/       # = DISCORD_EXPORT=./discord-export chatport import pipelines/discord.yaml',
    'chatport migrate discord export.zip --dry-run --json',
    'chatport migrate discord export.zip --shard 0/4 --state /data/chatport/discord   # one of four workers',
  ],
  'migrate mattermost': [
    'chatport migrate mattermost export.jsonl         # = MATTERMOST_EXPORT=export.jsonl chatport import pipelines/mattermost.yaml',
    'chatport migrate mattermost mattermost-export.zip --dry-run --json',
    'chatport migrate mattermost export.jsonl --state /data/chatport/mm   # rerun the same command to resume',
  ],
  export: [
    'chatport export all --to out/ --format ndjson --date 2026-11-21',
    'chatport export messages --to s3://bucket/chat --format parquet --date yesterday',
    'chatport export --pipeline pipelines/nightly-analytics.yaml --date 2026-11-21',
  ],
};

const pathOf = (command: Command): string => {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
};

/** Commander's addHelpText('after', …) listens for 'afterHelp' (Command is an EventEmitter, not so typed). */
const hasOwnHelpAfter = (command: Command): boolean => (command as unknown as NodeJS.EventEmitter).listenerCount('afterHelp') > 0;

/** Adds the examples after the help of a command (the program itself first) and of all its subcommands. */
export function addHelpExamples(command: Command): void {
  const examples = EXAMPLES[pathOf(command)];
  if (examples && !hasOwnHelpAfter(command)) command.addHelpText('after', `\nExamples:\n${examples.map((e) => `  ${e}`).join('\n')}\n`);
  for (const sub of command.commands) addHelpExamples(sub);
}
