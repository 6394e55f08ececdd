/** Slack exports as pipeline stages: pass 1 (the directory) and each stage's records from the export. */
export { readSlackStageBatches, type SlackStageDeps } from './read-slack-stage.js';
export { readSlackFirstPass, slackFirstPassFor, type SlackFirstPass } from './first-pass.js';
