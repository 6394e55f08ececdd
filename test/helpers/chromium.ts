import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * Headless Chromium (Debian's `chromium`, which .ci/run installs): renders a local page the way a person
 * sees it. `--no-sandbox` because tests may run as root; a fresh profile folder per call.
 */
const BASE = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--hide-scrollbars', '--no-first-run', '--allow-file-access-from-files'];

async function chromium(args: string[], profile: string): Promise<string> {
  const { stdout } = await promisify(execFile)('chromium', [...BASE, `--user-data-dir=${profile}`, ...args], { maxBuffer: 64 * 1024 * 1024, timeout: 90_000 });
  return stdout;
}

/** The DOM after the page is rendered (what the browser built, not the file's text). */
export function dumpDom(page: string, profile: string): Promise<string> {
  return chromium(['--dump-dom', `file://${page}`], profile);
}

/** A PNG screenshot of the page at the given window size. */
export async function screenshot(page: string, png: string, size: { width: number; height: number }, profile: string): Promise<void> {
  await chromium([`--screenshot=${png}`, `--window-size=${size.width},${size.height}`, `file://${page}`], profile);
}
