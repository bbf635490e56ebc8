import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type GrowthLimit, outgrown, WorkMeter } from "../support/work-meter.js";
import { HOSTILE_PATHS, type HostilePath, hostileTexts } from "./hostile-paths.js";
import { QUADRATIC_PATHS } from "./quadratic-paths.js";

// Run by hostile-text.test.ts in a process of its own, under the V8 flags of backtrackFlags
// (`node --import tsx … hostile-text-work.ts OUTPUT`): every hostile path on every hostile text
// at two sizes, the work of each counted by a WorkMeter, then the deliberately quadratic paths
// the same way; the verdicts go to OUTPUT as JSON. Counts, not times: the same on any machine.

/** The smaller size of each hostile text, in characters; the larger one is GROWTH times it. */
export const SMALL_SIZE = 32_768;
export const GROWTH = 4;

/**
 * Linear work grows 4x from the small size to the large one, quadratic 16x: a count may grow
 * 6x, plus one pass over the larger text (a handful of calls more is no trend). The paths'
 * budgets grow with the text (hostile-paths.ts), so both sizes meet the same caps.
 */
export const LIMIT: GrowthLimit = {
  growth: GROWTH,
  factor: 1.5,
  allowance: GROWTH * SMALL_SIZE,
};

/**
 * Backtracks one match may take (V8's count) before V8 reports it. Linear patterns step back
 * about once a character (a failed start counts), on texts of at most a few megabytes here; a
 * pattern quadratic on one small hostile text takes SMALL_SIZE² / 2 ≈ 5·10⁸.
 */
export const BACKTRACK_LIMIT = 2 ** 25;

/** What the counts say of one path on one hostile text. */
export interface Verdict {
  path: string;
  text: string;
  /** What grew more than the limit allows (empty: linear). */
  outgrown: string[];
}

/** What the run writes to its OUTPUT. */
export interface WorkReport {
  verdicts: Verdict[];
  /** The verdicts on QUADRATIC_PATHS: each must name what grew. */
  quadratic: Verdict[];
  /**
   * The regular expressions the paths ran on hostile text that V8's linear engine cannot run
   * (lookbehind, case-insensitive): V8 counts no backtracks of those, so BACKTRACK_LIMIT
   * checks nothing there.
   */
  unfollowed: string[];
}

/** Whether V8's linear engine takes `pattern` (needs `--enable-experimental-regexp-engine`). */
function runsLinear(pattern: RegExp): boolean {
  try {
    new RegExp(pattern.source, `${pattern.flags}l`);
    return true;
  } catch {
    return false;
  }
}

async function judge(
  meter: WorkMeter,
  path: HostilePath,
  small: Record<string, string>,
  large: Record<string, string>,
): Promise<Verdict[]> {
  const verdicts: Verdict[] = [];
  for (const text of path.text === undefined ? Object.keys(small) : [path.text]) {
    const before = await meter.measure(path.prepare(small[text]!, SMALL_SIZE));
    const after = await meter.measure(path.prepare(large[text]!, GROWTH * SMALL_SIZE));
    verdicts.push({ path: path.name, text, outgrown: outgrown(before, after, LIMIT) });
  }
  return verdicts;
}

async function main(output: string): Promise<void> {
  const meter = new WorkMeter(join(import.meta.dirname, "../.."));
  const small = hostileTexts(SMALL_SIZE);
  const large = hostileTexts(GROWTH * SMALL_SIZE);
  const verdicts: Verdict[] = [];
  for (const path of HOSTILE_PATHS) verdicts.push(...(await judge(meter, path, small, large)));
  const unfollowed = meter.patterns.filter((pattern) => !runsLinear(pattern)).map(String);
  const quadratic: Verdict[] = [];
  for (const path of QUADRATIC_PATHS) quadratic.push(...(await judge(meter, path, small, large)));
  meter.stop();
  const report: WorkReport = { verdicts, quadratic, unfollowed };
  writeFileSync(output, JSON.stringify(report));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main(process.argv[2] ?? "hostile-text-work.json");
}
