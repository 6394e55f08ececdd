/**
 * A one-line JSON summary in `/dev/termination-log`, which Kubernetes shows as the reason a pod ended
 * (at most 4 KiB). Written only when the file exists and is writable, i.e. inside a pod; elsewhere this
 * does nothing. `CHATPORT_TERMINATION_LOG` names another path (tests, other schedulers).
 */
import { constants } from 'node:fs';
import { access, writeFile } from 'node:fs/promises';
import { stringifyJson } from '../shared/lossless-json.js';
import { scrubSecrets } from '../shared/secrets.js';

const LIMIT_BYTES = 4096;

export async function writeTerminationLog(env: Readonly<Record<string, string | undefined>>, summary: Record<string, unknown>): Promise<void> {
  const path = env.CHATPORT_TERMINATION_LOG || '/dev/termination-log';
  try {
    await access(path, constants.W_OK);
  } catch {
    return;
  }
  let line = scrubSecrets(stringifyJson(summary));
  if (Buffer.byteLength(line) > LIMIT_BYTES - 1) {
    const error = summary.error as { message?: string } | undefined;
    const clipped = { ...summary, ...(error ? { error: { ...error, message: `${String(error.message).slice(0, 1000)}…` } } : {}), datasets: undefined };
    line = scrubSecrets(stringifyJson(clipped)).slice(0, LIMIT_BYTES - 1);
  }
  try {
    await writeFile(path, `${line}\n`);
  } catch {
    // The summary is a courtesy; never let it change how the run ends.
  }
}
