import { describe, expect, it } from "vitest";
import { refusalIssues as issuesOf } from "../../test/support/refusals.js";
import { AgentSession } from "../index.js";
import { appendChatCompletion } from "./chat-completion.js";
import { type ChatCompletionUsageLike, usageFromChatCompletion } from "./usage.js";

/** Bad counts, each with the path of the field a ValidationError must name. */
const BAD: [string, unknown, (string | number)[]][] = [
  ["prompt_tokens NaN", { prompt_tokens: Number.NaN, completion_tokens: 1 }, ["prompt_tokens"]],
  ["prompt_tokens negative", { prompt_tokens: -500, completion_tokens: 1 }, ["prompt_tokens"]],
  ["prompt_tokens fractional", { prompt_tokens: 1.5, completion_tokens: 1 }, ["prompt_tokens"]],
  ["prompt_tokens a string", { prompt_tokens: "10", completion_tokens: 1 }, ["prompt_tokens"]],
  ["prompt_tokens infinite", { prompt_tokens: Number.POSITIVE_INFINITY }, ["prompt_tokens"]],
  [
    "completion_tokens negative",
    { prompt_tokens: 10, completion_tokens: -4 },
    ["completion_tokens"],
  ],
  [
    "cached_tokens negative",
    { prompt_tokens: 10, prompt_tokens_details: { cached_tokens: -3 } },
    ["prompt_tokens_details", "cached_tokens"],
  ],
  [
    "cache_write_tokens fractional",
    { prompt_tokens: 10, prompt_tokens_details: { cache_write_tokens: 0.5 } },
    ["prompt_tokens_details", "cache_write_tokens"],
  ],
  [
    "prompt_cache_hit_tokens a string",
    { prompt_tokens: 10, prompt_cache_hit_tokens: "3" },
    ["prompt_cache_hit_tokens"],
  ],
  ["top-level cached_tokens negative", { prompt_tokens: 10, cached_tokens: -1 }, ["cached_tokens"]],
  // A bad count is refused even without `prompt_tokens`, as the other adapters refuse it.
  ["completion_tokens without prompt_tokens", { completion_tokens: -1 }, ["completion_tokens"]],
  [
    "prompt_tokens_details a number",
    { prompt_tokens: 10, prompt_tokens_details: 3 },
    ["prompt_tokens_details"],
  ],
  ["usage a string", "10", []],
];

describe("usageFromChatCompletion: a count that is not a whole number ≥ 0", () => {
  for (const [label, usage, path] of BAD) {
    it(`is a ValidationError naming it: ${label}`, () => {
      const issues = issuesOf(() => usageFromChatCompletion(usage as ChatCompletionUsageLike));
      expect(issues.map((issue) => issue.path)).toEqual([path]);
    });
  }

  it("takes null counts as absent, as before", () => {
    expect(
      usageFromChatCompletion({
        prompt_tokens: 10,
        completion_tokens: null as never,
        prompt_tokens_details: { cached_tokens: null },
        prompt_cache_hit_tokens: null,
        cached_tokens: 4,
      }),
    ).toEqual({ inputTokens: 6, cacheReadInputTokens: 4 });
    expect(usageFromChatCompletion({ prompt_tokens: 10, prompt_tokens_details: null })).toEqual({
      inputTokens: 10,
    });
  });
});

describe("appendChatCompletion with a bad usage count", () => {
  for (const [label, usage, path] of BAD) {
    it(`refuses it, naming usage.${path.join(".")}, and appends nothing: ${label}`, () => {
      const session = new AgentSession({ contextLimit: 200_000 });
      session.addUserText("hello");
      session.recordUsage({ inputTokens: 5_000 });
      const before = { messages: session.messages.length, used: session.contextUsed };
      const issues = issuesOf(() =>
        appendChatCompletion(session, {
          choices: [{ message: { role: "assistant", content: "hi", refusal: null } }],
          usage: usage as ChatCompletionUsageLike,
        }),
      );
      expect(issues.map((issue) => issue.path)).toEqual([["usage", ...path]]);
      expect({ messages: session.messages.length, used: session.contextUsed }).toEqual(before);
    });
  }
});
