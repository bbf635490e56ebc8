import { describe, expect, it } from "vitest";
import { MAX_MENTIONS, pathMentions, withMentions } from "./path-mentions.js";

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

  it("reads a megabyte of slashes and dots in one pass (no backtracking)", () => {
    for (const unit of ["/", ".", "/.", "a/b.", "./", "a/".repeat(150)]) {
      const text = unit.repeat(Math.ceil(1_000_000 / unit.length));
      expect(pathMentions(`${text} src/x.ts`)).toEqual(["src/x.ts"]);
    }
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
