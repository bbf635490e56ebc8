import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RECALL_MARK } from "../internal/recall-mark.js";
import {
  MAX_MENTIONS,
  MAX_MENTIONS_SUFFIX_LENGTH,
  pathMentions,
  SCAN_HEAD_CHARS,
  SCAN_TAIL_CHARS,
  withMentions,
} from "./path-mentions.js";
import { placeholderOf } from "./result-placeholder.js";
import { REDACTION_NOTICE } from "./tool-masking.js";

describe("pathMentions", () => {
  it("finds the paths of grep hits, stack traces and listings, first seen first, each once", () => {
    const output = [
      "src/auth/login.ts:12:  const token = read();",
      "    at handle (/repo/src/server/app.js:40:7)",
      'File "/usr/lib/python3/site.py", line 3',
      "./bench/run.ts ./bench/run.ts",
      "see docs/guide/intro.md.",
    ].join("\n");
    expect(pathMentions(output)).toEqual([
      "src/auth/login.ts",
      "/repo/src/server/app.js",
      "/usr/lib/python3/site.py",
      "./bench/run.ts",
      "docs/guide/intro.md",
    ]);
  });

  it("takes no extension longer than 8 characters", () => {
    expect(pathMentions("/..src000src and a/b.abcdefgh")).toEqual(["a/b.abcdefgh"]);
  });

  it("passes over what is no file path", () => {
    const text = [
      "https://docs.example.com/api https://example.com/page.html",
      "a.ts b/c d/e. 1/2.5 v1/2.0 x/y.toolongextension src/ a/.",
      "pool_size=32 TKT-123 [recall r7-3f2a]",
    ].join(" ");
    expect(pathMentions(text)).toEqual([]);
    expect(pathMentions(`${"a/".repeat(100)}b.ts`)).toEqual([]);
    expect(pathMentions(`${"a/".repeat(90)}b.ts`)).toEqual([`${"a/".repeat(90)}b.ts`]);
    expect(pathMentions("lib/.env and pkg/mod.d.ts")).toEqual(["lib/.env", "pkg/mod.d.ts"]);
  });

  it("keeps at most the limit, skipping the paths it is told to pass over", () => {
    const text = Array.from({ length: 20 }, (_, index) => `src/m/f${index}.ts`).join(" ");
    expect(pathMentions(text)).toHaveLength(MAX_MENTIONS);
    expect(pathMentions(text, 2, new Set(["src/m/f0.ts"]))).toEqual(["src/m/f1.ts", "src/m/f2.ts"]);
  });

  it("reads a long text at its head and tail only, never a path cut at the edge", () => {
    const filler = (length: number) => "x ".repeat(Math.ceil(length / 2)).slice(0, length);
    // The tail starts at "fix/cut.ts": the run "pre/fix/cut.ts" crosses into it, and is skipped.
    const tail = `fix/cut.ts and lib/tail.py ${filler(SCAN_TAIL_CHARS)}`.slice(0, SCAN_TAIL_CHARS);
    const text = `see src/head.ts ${filler(SCAN_HEAD_CHARS)} src/middle.ts ${filler(50_000)} pre/${tail}`;
    expect(pathMentions(text)).toEqual(["src/head.ts", "lib/tail.py"]);
    // A run from the head longer than any path (base64) is passed over, the tail still read.
    const base64 = `data/${"A".repeat(1_000_000)}.png then lib/tail.py`;
    expect(pathMentions(base64)).toEqual(["lib/tail.py"]);
    // A path starting right where the tail starts is found.
    const edge = `${filler(20_000)} src/at_tail.ts ${filler(SCAN_TAIL_CHARS - 15)}`;
    expect(pathMentions(edge)).toEqual(["src/at_tail.ts"]);
    // A text within both parts is read whole.
    expect(pathMentions(`${filler(SCAN_HEAD_CHARS)} src/middle.ts`)).toEqual(["src/middle.ts"]);
  });

  it("reads a megabyte of slashes and dots in one pass (no backtracking)", () => {
    for (const unit of ["/", ".", "/.", "a/b.", "./", "a/".repeat(150)]) {
      const text = unit.repeat(Math.ceil(1_000_000 / unit.length));
      expect(pathMentions(`${text} src/x.ts`)).toEqual(["src/x.ts"]);
    }
  });
});

/** The rule as written (runs of path characters, each judged whole): what the scan must give. */
function referenceMentions(text: string, limit: number, skip: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const [run] of text.matchAll(/[A-Za-z0-9_./@+~-]+/g)) {
    if (found.length >= limit) break;
    let path = run;
    while (path.endsWith(".")) path = path.slice(0, -1);
    const dot = path.lastIndexOf(".");
    const extension = path.slice(dot + 1);
    const isPath =
      path.length >= 3 &&
      path.length <= 200 &&
      !path.startsWith("//") &&
      dot > 0 &&
      /^[A-Za-z0-9]{1,8}$/.test(extension) &&
      /[A-Za-z]/.test(extension) &&
      path.lastIndexOf("/", dot - 1) !== -1;
    if (isPath && !skip.has(path) && !found.includes(path)) found.push(path);
  }
  return found;
}

describe("pathMentions against the rule as written", () => {
  it("gives the same paths on any text, limit and skip set", () => {
    const piece = fc.constantFrom("src", "/", ".", "ts", "a", " ", ":", "..", "//", "x9", "-");
    const text = fc.array(fc.oneof(piece, fc.string({ maxLength: 3 })), { maxLength: 40 });
    fc.assert(
      fc.property(
        text.map((pieces) => pieces.join("")),
        fc.integer({ min: 1, max: MAX_MENTIONS }),
        fc.subarray(["src/a.ts", "/a.ts", "a/src.ts", "src/ts.ts"]),
        (value, limit, skipped) => {
          const skip = new Set(skipped);
          expect(pathMentions(value, limit, skip)).toEqual(referenceMentions(value, limit, skip));
        },
      ),
      { numRuns: 2000, seed: 20261202 },
    );
  });
});

describe("withMentions", () => {
  it("adds the paths the original names that the placeholder does not, and nothing when none", () => {
    const original = "ok src/a/b.ts src/c.ts and src/a/b.ts again";
    expect(withMentions("read_file src/c.ts: 3 lines", original)).toBe(
      "read_file src/c.ts: 3 lines (mentions: src/a/b.ts)",
    );
    expect(withMentions("notice", original)).toBe("notice (mentions: src/a/b.ts, src/c.ts)");
    expect(withMentions("notice", "no paths here")).toBe("notice");
  });

  it("gives the same text applied to its own output, a recall mark after it or not", () => {
    const original = Array.from({ length: 12 }, (_, index) => `src/m/f${index}.ts`).join(" ");
    const once = withMentions("read_file src/m/f3.ts", original);
    expect(withMentions("read_file src/m/f3.ts", once)).toBe(once);
    expect(withMentions("read_file src/m/f3.ts", `${once} [recall r1-abcd]`)).toBe(once);
  });
});

describe("placeholderOf", () => {
  it("knows the longest placeholder as one, a recall mark after it, and a longer text as none", () => {
    // Eight paths of the longest length a mention may have.
    const long = (index: number) => `src/${String(index).padStart(191, "d")}/a.ts`;
    const original = Array.from({ length: 12 }, (_, index) => long(index)).join(" ");
    const once = withMentions(REDACTION_NOTICE, original);
    // The bound counts two characters after every path; the last one has none.
    expect(once.length).toBe(REDACTION_NOTICE.length + MAX_MENTIONS_SUFFIX_LENGTH - 2);
    const result = (content: string) =>
      ({ type: "tool_result", toolUseId: "t", content, isError: false }) as const;
    for (const content of [once, `${once}${RECALL_MARK}r${"9".repeat(16)}-abcd]`])
      expect(placeholderOf(result(content), REDACTION_NOTICE, true).done).toBe(true);
    expect(placeholderOf(result(`${original} ${original}`), REDACTION_NOTICE, true).done).toBe(
      false,
    );
  });
});
