import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./consumer-project.js";

const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  devDependencies: Record<string, string>;
};

/** Whether a range has an upper bound: a caret or tilde range, or a `<` comparator. */
function bounded(range: string): boolean {
  return /^[\^~]\d/.test(range) || range.includes("<");
}

describe("dependency ranges (users share one copy)", () => {
  it("gives every runtime dependency a range with an upper bound, not a pin", () => {
    for (const [name, range] of Object.entries(manifest.dependencies)) {
      expect(bounded(range), `${name}: ${range}`).toBe(true);
      expect(/^\d/.test(range), `${name}: ${range} is a pin`).toBe(false);
    }
  });

  it("gives every peer an upper bound, each optional, its dev version inside the range", () => {
    for (const [name, range] of Object.entries(manifest.peerDependencies)) {
      expect(bounded(range), `${name}: ${range}`).toBe(true);
      expect(manifest.peerDependenciesMeta[name]?.optional, name).toBe(true);
      const dev = manifest.devDependencies[name];
      expect(dev, `${name} is tested at a dev version`).toBeDefined();
      const [major] = dev!.split(".").map(Number);
      const upper = /<\s*(\d+)/.exec(range)?.[1];
      if (upper !== undefined)
        expect(major!, `${name} ${dev} within ${range}`).toBeLessThan(Number(upper));
    }
  });

  it("pins every dev dependency exactly", () => {
    for (const [name, version] of Object.entries(manifest.devDependencies))
      expect(/^\d+\.\d+\.\d+/.test(version), `${name}: ${version}`).toBe(true);
  });
});
