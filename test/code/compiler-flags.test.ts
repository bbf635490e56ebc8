// The tsconfig is as strict as the anchors' (issue 33): the Anthropic SDK's flags on top of
// `strict`, for the sources, tests, examples and bench alike, and for the declaration build,
// which extends it.
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");

/** The compiler options a tsconfig resolves to, `extends` followed. */
function optionsOf(file: string): ts.CompilerOptions {
  const read = ts.readConfigFile(join(ROOT, file), ts.sys.readFile);
  if (read.error !== undefined) throw new Error(`${file}: cannot be read`);
  return ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT).options;
}

const REQUIRED = [
  "strict",
  "noUncheckedIndexedAccess",
  "exactOptionalPropertyTypes",
  "noImplicitOverride",
  "noFallthroughCasesInSwitch",
  "noImplicitReturns",
  "noPropertyAccessFromIndexSignature",
] as const;

describe("the compiler flags", () => {
  for (const file of ["tsconfig.json", "tsconfig.build.json"]) {
    it(`${file} turns on every strict flag the anchors use`, () => {
      const options = optionsOf(file);
      expect(REQUIRED.filter((flag) => options[flag] !== true)).toEqual([]);
    });
  }
});
