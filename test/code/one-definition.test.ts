// Checks of the code base (issue 33): behaviour lives in types, not in module-level registries;
// usage is one type. A registry added, or a second usage type, fails here with its place.
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, sources } from "./sources.js";

/** `file:name` of each module-level (unindented) `new WeakMap` / `new WeakSet`. */
function moduleRegistries(): string[] {
  const found: string[] = [];
  for (const file of sources()) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      const match = /^(?:export )?(?:const|let) (\w+)\b.*= new Weak(?:Map|Set)\b/.exec(line);
      if (match !== null) found.push(`${relative(ROOT, file)}:${match[1]}`);
    }
  }
  return found.sort();
}

describe("one definition of each concept", () => {
  it("keeps module-level WeakMaps and WeakSets to caches, four at most", () => {
    // Each remembers what is known of an object so it is not worked out again; none carries
    // behaviour a type should (a compactor's trusted run, an error's origin, a view's backing).
    const caches = [
      "src/core/message-memo.ts:conversations",
      "src/core/message-memo.ts:memos",
      "src/internal/frozen.ts:deeplyFrozen",
      "src/models/price-usage.ts:checked",
    ];
    expect(moduleRegistries()).toEqual(caches);
  });

  it("declares the token usage once, in core/usage.ts", () => {
    const declaring = sources().filter((file) =>
      /^\s*inputTokens\??: number;/m.test(readFileSync(file, "utf8")),
    );
    expect(declaring.map((file) => relative(ROOT, file))).toEqual(["src/core/usage.ts"]);
  });
});
