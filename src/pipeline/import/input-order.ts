import type { StageConfig } from '../../config/index.js';
import type { RunWarning } from '../report.js';

/**
 * A stage's files are read in the order of their paths' characters, as S3 lists keys and `ls` sorts in the C
 * locale, so `part-10.csv` comes before `part-2.csv`: its messages land before part 2's in their channels (and
 * `duplicates: last-wins` takes part 2's). Said once, naming the first such pair, so that whoever numbered
 * the files without padding sees it before the platform holds that order.
 */
export function numberedFilesOrderWarning(stage: StageConfig, uris: readonly string[]): RunWarning | undefined {
  const at = uris.findIndex((uri, i) => i > 0 && byNumbers(uris[i - 1]!, uri) > 0);
  if (at === -1) return undefined;
  const path = `stages.${stage.stage}.source.path`;
  return {
    stage: stage.stage, path, field: '',
    message: `${path}: the stage's files are read in the order of their names' characters, so ${uris[at - 1]} is read before ${uris[at]}, `
      + 'and its records are imported first (messages keep that order in their channels); to have them read in the order their numbers say, '
      + 'pad the numbers with zeros (part-02, part-10)',
  };
}

const PIECES = /\d+|\D+/g;

/** Compares names as people read numbered files: digit runs by their value (`2` before `10`), the rest by characters. */
function byNumbers(a: string, b: string): number {
  const x = a.match(PIECES) ?? [];
  const y = b.match(PIECES) ?? [];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const order = isDigits(x[i]!) && isDigits(y[i]!) ? compareDigits(x[i]!, y[i]!) : compareText(x[i]!, y[i]!);
    if (order !== 0) return order;
  }
  return x.length - y.length;
}

const isDigits = (text: string) => text.charCodeAt(0) >= 48 && text.charCodeAt(0) <= 57;
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function compareDigits(a: string, b: string): number {
  const p = a.replace(/^0+(?=\d)/, '');
  const q = b.replace(/^0+(?=\d)/, '');
  return p.length !== q.length ? p.length - q.length : compareText(p, q);
}
