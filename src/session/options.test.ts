import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  backgroundCeiling,
  DEFAULT_SESSION_OPTIONS,
  sessionLimits,
  trimTarget,
} from "./options.js";

/** Each option's `@default` as the TSDoc of `AgentSessionOptions` states it. */
function documentedDefaults(): Map<string, string> {
  const source = readFileSync(new URL("./options.ts", import.meta.url), "utf8");
  const body = source.slice(source.indexOf("export interface AgentSessionOptions {"));
  const end = body.indexOf("\n}\n");
  const defaults = new Map<string, string>();
  for (const match of body.slice(0, end).matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*(\w+)\?:/g)) {
    const stated = /@default\s+(\S+)/.exec(match[1] ?? "")?.[1];
    if (stated !== undefined) defaults.set(match[2] ?? "", stated);
  }
  return defaults;
}

describe("the session's table of defaults", () => {
  it("is what the options' TSDoc states", () => {
    const documented = documentedDefaults();
    const table = DEFAULT_SESSION_OPTIONS as Record<string, unknown>;
    for (const key of [
      "maxConsecutiveFailures",
      "maxBlockShare",
      "keepStaleThinking",
      "hookTimeoutMs",
      "compactorTimeoutMs",
      "archiveTimeoutMs",
      "circuitCooldownMs",
    ]) {
      expect(documented.get(key), key).toBe(String(table[key]));
    }
  });

  it("is what the options resolve to when left out or set to true", () => {
    expect(trimTarget(undefined)).toBe(DEFAULT_SESSION_OPTIONS.trimOnOverflow.targetUtilization);
    expect(trimTarget(true)).toBe(DEFAULT_SESSION_OPTIONS.trimOnOverflow.targetUtilization);
    expect(trimTarget({})).toBe(DEFAULT_SESSION_OPTIONS.trimOnOverflow.targetUtilization);
    expect(trimTarget({ targetUtilization: 0.3 })).toBe(0.3);
    expect(trimTarget(false)).toBeUndefined();
    expect(backgroundCeiling(undefined)).toBeUndefined();
    expect(backgroundCeiling(false)).toBeUndefined();
    expect(backgroundCeiling(true)).toBe(DEFAULT_SESSION_OPTIONS.background.ceiling);
    expect(backgroundCeiling({})).toBe(DEFAULT_SESSION_OPTIONS.background.ceiling);
    expect(backgroundCeiling({ ceiling: 0.8 })).toBe(0.8);
    expect(sessionLimits({ hookTimeoutMs: 5 })).toEqual({
      hookTimeoutMs: 5,
      compactorTimeoutMs: DEFAULT_SESSION_OPTIONS.compactorTimeoutMs,
      archiveTimeoutMs: DEFAULT_SESSION_OPTIONS.archiveTimeoutMs,
      circuitCooldownMs: DEFAULT_SESSION_OPTIONS.circuitCooldownMs,
    });
  });
});
