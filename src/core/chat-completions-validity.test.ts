import { describe, expect, it } from "vitest";
import { conversation } from "../../test/support/role-conversation.js";
import { textBlock, toolResultBlock, toolUseBlock } from "../testing/index.js";
import type { ContentBlock, Message } from "./message.js";
import { SYSTEM_MESSAGE_BLOCK_TYPE } from "./message.js";
import { validateConversation } from "./validate-conversation.js";

const chat = (messages: Message[]) =>
  validateConversation(messages, { provider: "chat-completions" });
const codes = (messages: Message[]) => chat(messages).map((problem) => problem.code);
const system: ContentBlock = {
  type: "opaque",
  block: { type: SYSTEM_MESSAGE_BLOCK_TYPE, message: { role: "system", content: "x" } },
};

describe("validateConversation({ provider: 'chat-completions' })", () => {
  it("accepts parallel calls answered by the next message, text after the results included", () => {
    const loop = conversation(
      ["user", [system]],
      ["user", [textBlock("go")]],
      ["assistant", [toolUseBlock("a", "read"), toolUseBlock("b", "read")]],
      ["user", [toolResultBlock("b", "B"), toolResultBlock("a", "A"), textBlock("and then?")]],
      ["assistant", [textBlock("done")]],
    );
    expect(chat(loop)).toEqual([]);
  });

  it("reports calls left open before another message or at the end, in OpenAI's words", () => {
    const open = conversation(
      ["user", [textBlock("go")]],
      ["assistant", [toolUseBlock("a", "read"), toolUseBlock("b", "read")]],
      ["user", [toolResultBlock("a", "A")]],
    );
    expect(chat(open)).toEqual([
      {
        code: "missing_tool_result",
        messageIndex: 1,
        blockIndex: 1,
        toolUseId: "b",
        message:
          "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: b",
      },
    ]);
    const interrupted = conversation(
      ["user", [textBlock("go")]],
      ["assistant", [toolUseBlock("a", "read")]],
      ["user", [system]],
      ["user", [toolResultBlock("a", "A")]],
    );
    expect(codes(interrupted)).toEqual(["missing_tool_result", "orphan_tool_result"]);
  });

  it("reports results that answer no call of the message before, twice, or first", () => {
    expect(chat(conversation(["user", [toolResultBlock("z", "x")]]))[0]?.message).toBe(
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    );
    const wrong = conversation(
      ["user", [textBlock("go")]],
      ["assistant", [toolUseBlock("a", "read")]],
      [
        "user",
        [toolResultBlock("a", "A"), toolResultBlock("a", "again"), toolResultBlock("z", "?")],
      ],
    );
    expect(codes(wrong)).toEqual(["duplicate_tool_result", "orphan_tool_result"]);
    expect(codes(conversation(["user", [system]], ["assistant", [textBlock("hi")]]))).toEqual([
      "first_message_not_user",
    ]);
    expect(codes([])).toEqual(["empty_conversation"]);
  });
});
