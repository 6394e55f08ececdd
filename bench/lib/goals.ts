/**
 * Issue 12's goals as each benchmark measures them: one `@@goal` line on stdout per goal, which
 * `npm run bench` (run.ts) gathers into one table at the end, ratio beside goal.
 */
export interface GoalResult {
  /** What is measured, e.g. "CSV import CPU per record vs floor". */
  goal: string;
  /** The goal as text, e.g. "≤ 1.30×". */
  target: string;
  /** The measured figure as text, e.g. "2.41× (median of 3; 2.30–2.55)". */
  measured: string;
  met: boolean;
}

export const GOAL_PREFIX = '@@goal ';

export function reportGoal(result: GoalResult): void {
  process.stdout.write(`${GOAL_PREFIX}${JSON.stringify(result)}\n`);
}

/** A ratio goal: measured ≤ limit. */
export function ratioGoal(goal: string, limit: number, ratios: { min: number; median: number; max: number }, runs: number): void {
  reportGoal({
    goal,
    target: `≤ ${limit.toFixed(2)}×`,
    measured: `${ratios.median.toFixed(2)}× (median of ${runs}; ${ratios.min.toFixed(2)}–${ratios.max.toFixed(2)})`,
    met: ratios.median <= limit,
  });
}
