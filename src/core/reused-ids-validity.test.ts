import { describe, expect, it } from "vitest";
import { conversation } from "../../test/support/role-conversation.js";
import { textBlock, toolResultBlock, toolUseBlock } from "../testing/index.js";
import { type ConversationProvider, validateConversation } from "./validate-conversation.js";

/**
 * Review 55a's finding 2: a call reusing an answered call's id (a provider numbering each
 * reply's calls, `call_0` every time) was reported as `duplicate_tool_use_id`, though the
 * converters send it as `<id>_<n>` and the session takes it.
 */

const RENAMING: ConversationProvider[] = ["anthropic", "openai", "chat-completions", "ai-sdk"];

describe("validateConversation with a reused call id", () => {
  it("finds nothing wrong once the earlier call was answered, for every provider that renames it", () => {
    const messages = conversation(
      ["user", [textBlock("go")]],
      ["assistant", [toolUseBlock("call_0", "ls")]],
      ["user", [toolResultBlock("call_0", "a")]],
      ["assistant", [toolUseBlock("call_0", "ls")]],
      ["user", [toolResultBlock("call_0", "b")]],
      ["assistant", [textBlock("done")]],
    );
    for (const provider of RENAMING)
      expect(validateConversation(messages, { provider }), provider).toEqual([]);
  });

  it("still reports an id given again while its call waits, and names the caller's id", () => {
    const waiting = conversation(
      ["user", [textBlock("go")]],
      ["assistant", [toolUseBlock("call_0", "ls"), toolUseBlock("call_0", "ls")]],
      ["user", [toolResultBlock("call_0", "a")]],
    );
    for (const provider of RENAMING)
      expect(
        validateConversation(waiting, { provider }).map((problem) => problem.code),
        provider,
      ).toContain("duplicate_tool_use_id");
    // The renamed call left unanswered: the problem is on the caller's block, by its own id.
    const unanswered = conversation(
      ["user", [textBlock("go")]],
      ["assistant", [toolUseBlock("call_0", "ls")]],
      ["user", [toolResultBlock("call_0", "a")]],
      ["assistant", [toolUseBlock("call_0", "ls")]],
      ["user", [textBlock("and?")]],
    );
    const [problem] = validateConversation(unanswered, { provider: "chat-completions" });
    expect(problem).toMatchObject({
      code: "missing_tool_result",
      messageIndex: 3,
      blockIndex: 0,
      toolUseId: "call_0",
    });
    expect(problem?.message).toContain("call_0_2");
  });
});
