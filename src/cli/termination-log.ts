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
  const line = fitted(summary);
  try {
    await writeFile(path, `${line}\n`);
  } catch {
    // The summary is a courtesy; never let it change how the run ends.
  }
}

const fits = (line: string) => Buffer.byteLength(line) <= LIMIT_BYTES - 1;

/**
 * The summary as one JSON line within the limit, counted in bytes (Kubernetes cuts there, whatever the
 * script): whole if it fits; else its message clipped to 1,000 characters and without `datasets`; else only
 * its short plain fields (status, exit code, run, date…; no lists, no long notes) and the error's code, with as
 * much of the message as fits.
 */
function fitted(summary: Record<string, unknown>): string {
  const whole = scrubSecrets(stringifyJson(summary));
  if (fits(whole)) return whole;
  const error = summary.error as { code?: unknown; message?: unknown } | undefined;
  // Scrubbed before it is cut: a cut through a secret would leave its first part, which no scrub finds.
  const message = error ? scrubSecrets(String(error.message)) : '';
  const clipped = scrubSecrets(stringifyJson({ ...summary, ...(error ? { error: { ...error, message: `${clip(message, 1000)}…` } } : {}), datasets: undefined }));
  if (fits(clipped)) return clipped;
  const plain = Object.fromEntries(Object.entries(summary).filter(([, v]) => v === null || (typeof v !== 'object' && String(v).length <= 200)));
  const lineWith = (length: number) =>
    scrubSecrets(stringifyJson({ ...plain, ...(error ? { error: { code: error.code, message: `${clip(message, length)}…` } } : {}), clipped: true }));
  let length = Math.min(message.length, 1000);
  let line = lineWith(length);
  // Each character is at least one byte: dropping as many characters as there are bytes too many fits.
  while (!fits(line) && length > 0) {
    length = Math.max(0, length - (Buffer.byteLength(line) - (LIMIT_BYTES - 1)));
    line = lineWith(length);
  }
  return line;
}

/** The first `length` characters, never half of a surrogate pair. */
function clip(text: string, length: number): string {
  const cut = text.slice(0, length);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}
