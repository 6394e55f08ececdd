/** Min, median and max of a benchmark's runs (the median of an even count is the mean of the middle two), and as text. */
export function spread(values: readonly number[], digits = 1): { min: number; median: number; max: number; text: string } {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) throw new Error('spread of no values');
  const median = s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  const f = (x: number) => x.toFixed(digits);
  return { min: s[0]!, median, max: s.at(-1)!, text: `${f(s[0]!)} / ${f(median)} / ${f(s.at(-1)!)}` };
}
