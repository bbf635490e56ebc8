import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The conversions in and out of every provider's format make no object whose allocation site
 * V8 can pretenure (`src/core/message-shapes.ts`): after rounds whose results outlive young
 * collections, the next round's objects are still made in the young generation. Asked of V8
 * itself (`%InYoungGeneration`), in a process of its own (`test/support/young-objects-probe.ts`).
 */
describe("objects made per message", () => {
  it("stay in the young generation after rounds that pretenure any object literal's site", () => {
    const probe = fileURLToPath(new URL("../support/young-objects-probe.ts", import.meta.url));
    const child = spawnSync(
      process.execPath,
      ["--allow-natives-syntax", "--expose-gc", "--import", "tsx", probe],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(child.stderr).toBe("");
    const report = JSON.parse(child.stdout) as Record<
      string,
      { read: { old: number; of: number }; write: { old: number; of: number } }
    >;
    expect(Object.keys(report).sort()).toEqual([
      "ai-sdk",
      "anthropic",
      "chat-completions",
      "gemini",
      "responses",
    ]);
    for (const [way, { read, write }] of Object.entries(report)) {
      expect({ way, read: read.old, write: write.old }).toEqual({ way, read: 0, write: 0 });
      // Each way made objects to ask about (a probe that checked nothing would pass).
      expect(read.of).toBeGreaterThan(1000);
      expect(write.of).toBeGreaterThan(500);
    }
  });
});
