import type { ChatportClient } from '../../api/index.js';
import type { Invocation } from '../../wire/resources.js';

/** The demo's chat function: a TypeScript handler that answers a sent message through its `context`. */
const HANDLER = `interface SentMessage { message: { body: string; user?: { name: string } }; channel: { id: number; name?: string } }

async function handleEvent(event: SentMessage, context: any): Promise<{ answered: string }> {
  const who = event.message.user?.name ?? 'someone';
  await context.getChannelApi().sendChannelMessage(event.channel.id, { type: 'SYSTEM_TEXT', body: \`\${process.env.BOT_NAME}: thanks, \${who}\` });
  return { answered: who };
}
`;

const POLL_MS = 50;
const MAX_POLLS = 200;

/**
 * Deploys the handler for `user.sent.message`, sends a message as `username` into the channel, and waits
 * for the invocation to end (functions run after the message's answer). Returns what to print.
 */
export async function demoChatFunction(client: ChatportClient, channelId: number | bigint, username: string): Promise<string[]> {
  await client.runtime.setEnvironmentVariables({ BOT_NAME: 'welcome-bot' });
  const fn = await client.runtime.createFunction({ type: 'user.sent.message', name: 'welcome-bot', initializeAsynchronously: false });
  const version = await client.runtime.deploy(fn.id, HANDLER);
  const sent = await client.channels.sendMessage(channelId, { type: 'TEXT', body: 'hello from the demo', user: { username } });
  let invocation: Invocation | undefined;
  for (let i = 0; i < MAX_POLLS && (invocation === undefined || invocation.status === 'RUNNING'); i++) {
    for await (const newest of client.runtime.invocations(fn.id, { pageSize: 1 })) {
      invocation = newest;
      break;
    }
    if (invocation === undefined || invocation.status === 'RUNNING') await new Promise((r) => setTimeout(r, POLL_MS));
  }
  const lines = [`  deployed function ${fn.id} (user.sent.message, TypeScript) as version ${version.versionNumber}`, `  ${username} sent message ${sent.id}: "${sent.body}"`];
  if (!invocation) return [...lines, '  the function did not run'];
  lines.push(`  invocation ${invocation.id}: ${invocation.status} ${JSON.stringify(invocation.result ?? {})}`);
  for await (const m of client.channels.messages(channelId, { pageSize: 100 })) if (m.type === 'SYSTEM_TEXT' && m.body?.startsWith('welcome-bot:')) lines.push(`  the channel now holds its answer: "${m.body}"`);
  return lines;
}
