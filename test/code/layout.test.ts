// STYLE's layout (issue 33): each entry's code in its folder, `src/<entry>/index.ts` its barrel,
// built to `dist/<entry>/index.*`; nothing but the root barrel at the top of `src/`; `internal/`
// says in a one-line README that no entry exports it.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");

interface PackageJson {
  exports: Record<string, string | { import: { types: string; default: string } }>;
  typesVersions: Record<string, Record<string, string[]>>;
}
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as PackageJson;
const tsupConfig = readFileSync(join(ROOT, "tsup.config.ts"), "utf8");

/** The subpath entries (`./anthropic` → `anthropic`); the root and `./package.json` are not. */
const subpaths = Object.entries(manifest.exports).flatMap(([subpath, target]) =>
  subpath === "." || typeof target === "string" ? [] : [subpath.slice(2)],
);

describe("the layout", () => {
  it("builds each entry from the barrel in its own folder", () => {
    expect(subpaths.length).toBeGreaterThan(0);
    const misplaced = subpaths.filter((name) => {
      const target = manifest.exports[`./${name}`];
      if (target === undefined || typeof target === "string") return true;
      return (
        !existsSync(join(ROOT, "src", name, "index.ts")) ||
        !tsupConfig.includes(`"${name}/index": "src/${name}/index.ts"`) ||
        target.import.default !== `./dist/${name}/index.js` ||
        target.import.types !== `./dist/types/${name}/index.d.ts` ||
        manifest.typesVersions["*"]?.[name]?.[0] !== `./dist/types/${name}/index.d.ts`
      );
    });
    expect(misplaced).toEqual([]);
  });

  it("keeps no file at the top of src/ but the root barrel", () => {
    const files = readdirSync(join(ROOT, "src"), { withFileTypes: true })
      .filter((entry) => !entry.isDirectory())
      .map((entry) => entry.name);
    expect(files).toEqual(["index.ts"]);
  });

  it("says in one line that internal/ is exported by no entry", () => {
    const readme = readFileSync(join(ROOT, "src", "internal", "README.md"), "utf8").trim();
    expect(readme.split("\n")).toHaveLength(1);
    expect(readme).toMatch(/no entry/i);
  });
});
