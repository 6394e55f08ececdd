import { access, constants, writeFile } from 'node:fs/promises';
import { redactValue } from '../shared/secrets.js';

/**
 * Kubernetes shows the content of /dev/termination-log (at most 4 KB) as the reason a pod ended. Written
 * only when the file exists and is writable, i.e. inside a pod; a one-line JSON summary, secrets scrubbed.
 */
export async function writeTerminationMessage(summary: Record<string, unknown>, path = process.env.CHATPORT_TERMINATION_LOG ?? '/dev/termination-log'): Promise<void> {
  const writable = await access(path, constants.W_OK).then(() => true, () => false);
  if (!writable) return;
  const line = JSON.stringify(redactValue(summary)).slice(0, 4000);
  await writeFile(path, `${line}\n`).catch(() => undefined);
}
