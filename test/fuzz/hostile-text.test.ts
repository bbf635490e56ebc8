import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { TOKEN } from "../../src/compactors/fact-tokens.js";
import { backtrackedPatterns, backtrackFlags } from "../support/work-meter.js";
import { HOSTILE_PATHS, type HostilePath, hostileTexts } from "./hostile-paths.js";
import { BACKTRACK_LIMIT, GROWTH, SMALL_SIZE, type WorkReport } from "./hostile-text-work.js";
import { COUNTED_QUADRATIC_PATHS, TRAILING_PUNCTUATION } from "./quadratic-paths.js";

// Issue 22 §6: untrusted text (tool output, summaries, the user's words) must never make a
// path of the library super-linear. Each path runs on each hostile text at 32k and 128k
// characters, its budgets grown with the text (hostile-paths.ts), in a process of its own
// (hostile-text-work.ts), and its work is counted, not timed: the verdict is the same on any
// machine under any load.
//   - How often each function's blocks ran, and how far the searching and copying built-ins
//     went (test/support/work-meter.ts): linear work grows 4x, quadratic 16x; the limit is 6x,
//     plus one pass over the larger text.
//   - V8's own count of a regular expression's backtracks in one match, reported above
//     BACKTRACK_LIMIT. Before the facts check was fixed, its `/[.!?;:,]+$/` took 3.2 s on
//     40,000 dots followed by a letter (quadratic-paths.ts keeps it: the check must flag it).
// The deliberately quadratic paths of quadratic-paths.ts show that each check can fail. How
// long the paths take is a matter for the bench, not for a test.

const ROOT = join(import.meta.dirname, "../..");
const WORK = join(import.meta.dirname, "hostile-text-work.ts");

/**
 * The regular expressions the paths run on hostile text that V8 counts no backtracks of (its
 * linear engine takes no lookbehind and no `i` flag on Node 20), each linear by construction.
 * A new one fails this test: look at it the same way, then add it here.
 */
const UNFOLLOWED = [
  // facts-check.ts and fact-presence.ts: sentences split after one literal character behind.
  String.raw`/(?<=[.!?])\s+/`,
  "/(?<=[.!?]) /",
  // facts-check.ts: a choice of words with one short lookbehind.
  String.raw`/\b(?:must|mustn[’']t|never|always|(?<!\b(?:i|it)\s)(?:don[’']t|do not)|only|without|avoid|make sure|ensure|keep|prefer)\b/i`,
  // fact-tokens.ts: the tokenizer (its header says why each character is read at most twice).
  String(TOKEN),
  // fact-tokens.ts: run on one token of at most MAX_TOKEN_LENGTH (256) characters.
  String.raw`/^[a-z][a-z0-9+.-]*:\/\/\S+$/i`,
  String.raw`/(?<![\w-])(?:[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}|v\d+(?:\.\d+)+(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?|\d+(?:\.\d+){2,}(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?|[A-Z][A-Z0-9]{1,9}-\d+|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[a-z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+){2,}|(?<opaque>[A-Za-z0-9]{7,}))(?![\w-])/g`,
  // transcript.ts: the tags it escapes, no repeat.
  String.raw`/<(\/?)(tool_output|tool_input|conversation)/gi`,
];

/** Runs hostile-text-work.ts under the backtrack flags: its report and the patterns V8 named. */
async function countWork(): Promise<{ report: WorkReport; backtracked: string[] }> {
  const directory = mkdtempSync(join(tmpdir(), "hostile-text-"));
  try {
    const output = join(directory, "report.json");
    const child = spawn(
      process.execPath,
      [...backtrackFlags(BACKTRACK_LIMIT), "--import", "tsx", WORK, output],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const status = await new Promise<number | null>((resolve) => child.on("close", resolve));
    if (status !== 0) throw new Error(`hostile-text-work.ts exited with ${status}: ${stderr}`);
    const report = JSON.parse(readFileSync(output, "utf8")) as WorkReport;
    return { report, backtracked: backtrackedPatterns(stdout) };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

let report: WorkReport;
let backtracked: string[];

beforeAll(async () => {
  ({ report, backtracked } = await countWork());
}, 600_000);

const texts = Object.keys(hostileTexts(8));
const everyText = HOSTILE_PATHS.filter((path) => path.text === undefined);
const groups = [...new Set(everyText.map((path) => path.group))];

/** Checks that each of `paths` ran on `text`, and that none outgrew the limit there. */
function expectLinear(paths: readonly HostilePath[], text: string): void {
  const names = paths.map((path) => path.name);
  const verdicts = report.verdicts.filter(
    (verdict) => verdict.text === text && names.includes(verdict.path),
  );
  expect(verdicts.map((verdict) => verdict.path)).toEqual(names);
  const grown = verdicts.flatMap((verdict) =>
    verdict.outgrown.map((what) => `${verdict.path}: ${what}`),
  );
  expect(grown).toEqual([]);
}

describe(`hostile text: every text path stays linear (work counted at ${SMALL_SIZE} and ${GROWTH}x as many characters)`, () => {
  for (const group of groups)
    it.each(texts)(`${group}: %s`, (text) =>
      expectLinear(
        everyText.filter((path) => path.group === group),
        text,
      ),
    );

  for (const path of HOSTILE_PATHS.filter((candidate) => candidate.text !== undefined))
    it(`${path.group}: ${path.name}`, () => expectLinear([path], path.text ?? ""));

  it(`no regular expression backtracks more than ${BACKTRACK_LIMIT} times in one match`, () => {
    expect(backtracked.filter((source) => source !== TRAILING_PUNCTUATION.source)).toEqual([]);
  });

  it("the regular expressions V8 counts no backtracks of are the known ones", () => {
    expect(report.unfollowed.sort()).toEqual([...UNFOLLOWED].sort());
  });
});

describe("the checks catch quadratic work (they can fail)", () => {
  it("V8 reports the old trim of trailing punctuation on a run of dots", () => {
    expect(backtracked).toContain(TRAILING_PUNCTUATION.source);
  });

  for (const { name } of COUNTED_QUADRATIC_PATHS)
    it(`the counts flag ${name}`, () => {
      const verdict = report.quadratic.find((candidate) => candidate.path === name);
      expect(verdict?.outgrown.length).toBeGreaterThan(0);
    });
});
