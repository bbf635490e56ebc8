import { describe, expect, it } from "vitest";
import { addUsage, allInputTokens, type CompactionUsage, type Usage } from "./usage.js";

describe("one usage", () => {
  it("counts every input token: uncached, cache writes and cache reads", () => {
    expect(allInputTokens({ inputTokens: 5 })).toBe(5);
    expect(
      allInputTokens({
        inputTokens: 5,
        cacheCreationInputTokens: 7,
        cacheReadInputTokens: 11,
        outputTokens: 100,
      }),
    ).toBe(23);
  });

  it("adds two usages into a new one, a count present when either part reported it", () => {
    const total: CompactionUsage = { inputTokens: 1, outputTokens: 2 };
    const more: CompactionUsage = { inputTokens: 10, outputTokens: 20, cacheReadInputTokens: 5 };
    const sum = addUsage(total, more);
    expect(sum).toEqual({ inputTokens: 11, outputTokens: 22, cacheReadInputTokens: 5 });
    expect(sum).not.toBe(total);
    expect(total).toEqual({ inputTokens: 1, outputTokens: 2 });
    const reported: Usage = { inputTokens: 3, cacheCreationInputTokens: 0 };
    expect(addUsage({ inputTokens: 1 }, reported)).toEqual({
      inputTokens: 4,
      cacheCreationInputTokens: 0,
    });
  });

  it("starts from a copy of the first usage", () => {
    const first: Usage = { inputTokens: 3, outputTokens: 4 };
    const sum = addUsage(undefined, first);
    expect(sum).toEqual(first);
    expect(sum).not.toBe(first);
  });
});
