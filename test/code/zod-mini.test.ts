// Checks of the code base (issue 33, the browser bundle): the library's schemas are built with
// `zod/mini`, whose schemas carry no methods, so a bundle takes only the zod it uses (classic
// zod's `z` brings its whole API, 60 kB more; test/package/bundle.test.ts measures it). Its
// parses pass zod's English locale (`zod/mini` loads none), so they go through `safeParse` or
// `parseOrThrow` of `src/core/errors.ts`.
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, sources } from "./sources.js";

/** `file: line` of each line of the sources that `pattern` matches. */
function linesMatching(pattern: RegExp, except: readonly string[] = []): string[] {
  const found: string[] = [];
  for (const file of sources()) {
    const name = relative(ROOT, file);
    if (except.includes(name)) continue;
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (pattern.test(line)) found.push(`${name}: ${line.trim()}`);
    }
  }
  return found;
}

describe("zod in the library's sources", () => {
  it("is imported from zod/mini (and the English locale from zod/locales), never classic zod", () => {
    const imports = linesMatching(/from "zod[^"]*"/);
    expect(imports.length).toBeGreaterThan(40);
    expect(imports.filter((line) => !/from "zod\/(mini|locales)"/.test(line))).toEqual([]);
  });

  it("parses through errors.ts (safeParse, parseOrThrow), which passes the English locale", () => {
    const parses = linesMatching(/\.(safeParse|parse|parseAsync|safeParseAsync)\(/, [
      "src/core/errors.ts",
    ]);
    expect(parses.filter((line) => !/JSON\.parse\(/.test(line))).toEqual([]);
  });
});
