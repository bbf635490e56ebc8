import { describe, expect, it } from "vitest";
import { gate } from "../../test/support/gate.js";
import { asyncStorage, HookScope } from "./hook-scope.js";

describe("HookScope", () => {
  it("without storage, a hook the session stopped waiting for (until settled) no longer counts", async () => {
    const scope = new HookScope(null);
    const abandoned = gate();
    void scope.run(() => new Promise<never>(() => {}), abandoned.opened);
    expect(scope.active).toBe(true);
    abandoned.open();
    await abandoned.opened;
    await Promise.resolve();
    expect(scope.active).toBe(false);
  });

  it("finds AsyncLocalStorage on Node", () => {
    expect(asyncStorage()).toBeDefined();
  });

  it("with AsyncLocalStorage, is active for the hook's own calls only, while it runs", async () => {
    const scope = new HookScope();
    const release = gate();
    const returned = gate();
    const seen: Record<string, boolean> = {};
    let later: Promise<boolean> | undefined;
    const running = scope.run(async () => {
      seen["inHook"] = scope.active;
      await Promise.resolve();
      seen["afterAwait"] = scope.active;
      // Started by the hook (in its async context), run after it returned: no longer inside it.
      later = returned.opened.then(() => scope.active);
      await release.opened;
    });
    seen["outside"] = scope.active;
    release.open();
    await running;
    returned.open();
    expect(seen).toEqual({ inHook: true, afterAwait: true, outside: false });
    expect(await later).toBe(false);
    expect(scope.active).toBe(false);
  });

  it("without it, is active for every caller while a hook runs", async () => {
    const scope = new HookScope(null);
    const release = gate();
    const running = scope.run(async () => {
      await release.opened;
    });
    expect(scope.active).toBe(true);
    release.open();
    await running;
    expect(scope.active).toBe(false);
  });

  it("knows its hook's calls through another scope's hook they started", async () => {
    const outer = new HookScope();
    const inner = new HookScope();
    const seen: boolean[] = [];
    await outer.run(async () =>
      inner.run(async () => {
        seen.push(outer.active, inner.active);
      }),
    );
    expect(seen).toEqual([true, true]);
    const other = new HookScope();
    await inner.run(async () => {
      seen.push(other.active);
    });
    expect(seen).toEqual([true, true, false]);
  });

  it("ends the scope when the hook throws", async () => {
    const scope = new HookScope();
    await expect(
      scope.run(async () => {
        throw new Error("hook");
      }),
    ).rejects.toThrow("hook");
    expect(scope.active).toBe(false);
  });
});
