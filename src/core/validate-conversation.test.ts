import { describe, expect, it } from "vitest";
import { conversation, roleMessage } from "../../test/support/role-conversation.js";
import { ConversationBuilder, textBlock, toolResultBlock, toolUseBlock } from "../testing/index.js";
import { assertMessages } from "./entry-validation.js";
import { ValidationError } from "./errors.js";
import type { ContentBlock, Message } from "./message.js";
import { validateConversation } from "./validate-conversation.js";

const codes = (messages: Message[]) => validateConversation(messages).map((p) => p.code);

describe("validateConversation", () => {
  it("accepts a conversation with parallel tool calls, errors and text after results", () => {
    const messages = new ConversationBuilder()
      .user("Fix the bug")
      .toolCalls(
        [
          { name: "read", result: "contents" },
          { name: "grep", result: "no match", isError: true },
        ],
        { text: "Looking." },
      )
      .assistant([toolUseBlock("toolu_x", "ls")])
      .toolResults([toolResultBlock("toolu_x", "a b")])
      .build();
    // Text after the tool results, in the same user message.
    const last = messages.at(-1)!;
    messages[messages.length - 1] = { ...last, content: [...last.content, textBlock("Also X")] };
    expect(validateConversation(messages)).toEqual([]);
  });

  it("accepts a final assistant message with a pending tool_use or empty content", () => {
    expect(
      codes(conversation(["user", [textBlock("hi")]], ["assistant", [toolUseBlock("t1", "ls")]])),
    ).toEqual([]);
    expect(codes(conversation(["user", [textBlock("hi")]], ["assistant", []]))).toEqual([]);
  });

  it("reports an empty conversation and a first message from the assistant", () => {
    expect(validateConversation([])).toEqual([
      { code: "empty_conversation", message: "messages: at least one message is required" },
    ]);
    expect(validateConversation(conversation(["assistant", [textBlock("hi")]]))).toEqual([
      {
        code: "first_message_not_user",
        messageIndex: 0,
        message: 'messages: first message must use the "user" role',
      },
    ]);
  });

  it("reports a tool_use without its result in the next message, in the API's words", () => {
    const problems = validateConversation(
      conversation(
        ["user", [textBlock("hi")]],
        ["assistant", [toolUseBlock("toolu_1", "ls")]],
        ["user", [textBlock("never mind")]],
      ),
    );
    expect(problems).toEqual([
      {
        code: "missing_tool_result",
        messageIndex: 1,
        toolUseId: "toolu_1",
        message:
          "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
      },
    ]);
  });

  it("reports a tool_result whose tool_use is not in the previous message", () => {
    const problems = validateConversation(
      conversation(["user", [toolResultBlock("toolu_9", "x")]], ["assistant", [textBlock("ok")]]),
    );
    expect(problems).toEqual([
      {
        code: "orphan_tool_result",
        messageIndex: 0,
        blockIndex: 0,
        toolUseId: "toolu_9",
        message:
          "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
      },
    ]);
  });

  it("reports a result two messages after its use (a message in between)", () => {
    expect(
      codes(
        conversation(
          ["user", [textBlock("hi")]],
          ["assistant", [toolUseBlock("t1", "ls")]],
          ["assistant", [textBlock("thinking aloud")]],
          ["user", [toolResultBlock("t1", "x")]],
        ),
      ),
    ).toEqual(["missing_tool_result", "orphan_tool_result"]);
  });

  it("reports placement errors: results not first, results from the assistant, tool_use from the user", () => {
    expect(
      codes(
        conversation(
          ["user", [textBlock("hi")]],
          ["assistant", [toolUseBlock("t1", "ls")]],
          ["user", [textBlock("first"), toolResultBlock("t1", "x")]],
        ),
      ),
    ).toEqual(["tool_result_not_first"]);
    expect(
      codes(conversation(["user", [textBlock("hi")]], ["assistant", [toolResultBlock("t1", "x")]])),
    ).toEqual(["tool_result_in_assistant_message"]);
    expect(
      codes(
        conversation([
          "user",
          [toolUseBlock("t1", "ls"), { type: "thinking", thinking: "t", signature: "s" }],
        ]),
      ),
    ).toEqual(["assistant_block_in_user_message", "assistant_block_in_user_message"]);
  });

  it("reports duplicate tool_use ids and duplicate results", () => {
    const problems = validateConversation(
      conversation(
        ["user", [textBlock("hi")]],
        ["assistant", [toolUseBlock("t1", "ls"), toolUseBlock("t1", "ls")]],
        ["user", [toolResultBlock("t1", "x"), toolResultBlock("t1", "y")]],
      ),
    );
    expect(problems.map((p) => [p.code, p.messageIndex, p.blockIndex])).toEqual([
      ["duplicate_tool_use_id", 1, 1],
      ["duplicate_tool_result", 2, 1],
    ]);
    expect(problems[0]?.message).toBe("messages.1.content.1: `tool_use` ids must be unique");
  });

  it("reports empty messages, empty and whitespace text, and trailing whitespace at the end", () => {
    expect(
      validateConversation(
        conversation(["user", []], ["assistant", [textBlock("ok")]], ["user", [textBlock("")]]),
      ).map((p) => p.message),
    ).toEqual([
      "messages.0: all messages must have non-empty content except for the optional final assistant message",
      "messages.2.content.0: text content blocks must be non-empty",
    ]);
    expect(codes(conversation(["user", [textBlock(" \n")]]))).toEqual(["whitespace_text"]);
    expect(
      codes(conversation(["user", [textBlock("hi")]], ["assistant", [textBlock("Sure. ")]])),
    ).toEqual(["trailing_whitespace"]);
  });

  it("checks server tool results against their server_tool_use in the same message", () => {
    const use = {
      type: "opaque",
      block: { type: "server_tool_use", id: "srv_1", name: "web_search", input: {} },
    } satisfies ContentBlock;
    const result = {
      type: "opaque",
      block: { type: "web_search_tool_result", tool_use_id: "srv_1", content: [] },
    } satisfies ContentBlock;
    expect(
      codes(conversation(["user", [textBlock("search")]], ["assistant", [use, result]])),
    ).toEqual([]);
    const problems = validateConversation(
      conversation(["user", [textBlock("search")]], ["assistant", [result, use]]),
    );
    expect(problems.map((p) => p.message)).toEqual([
      "messages.1.content.0: unexpected `tool_use_id` found in `web_search_tool_result` blocks: srv_1. Each `web_search_tool_result` block must have a corresponding `server_tool_use` block before it.",
    ]);
  });

  it("refuses malformed input with a ValidationError naming the path", () => {
    expect(() => validateConversation(null as never)).toThrow(ValidationError);
    expect(() => validateConversation("x" as never)).toThrow(ValidationError);
    try {
      validateConversation([
        { ...roleMessage("user", [textBlock("x")], 0), role: "system" },
      ] as never);
      expect.unreachable();
    } catch (error) {
      expect(ValidationError.isInstance(error)).toBe(true);
      expect((error as ValidationError).issues[0]?.path).toEqual([0, "role"]);
    }
  });
});

describe("assertMessages", () => {
  it("accepts well-formed messages, twice from its cache, and refuses duplicates and junk", () => {
    const messages = new ConversationBuilder().user("a").assistant("b").build();
    expect(() => assertMessages(messages, "conversation")).not.toThrow();
    expect(() => assertMessages(messages, "conversation")).not.toThrow();
    expect(() => assertMessages([messages[0], messages[0]], "conversation")).toThrow(
      /duplicate message id/,
    );
    expect(() => assertMessages({}, "conversation")).toThrow(ValidationError);
    expect(() => assertMessages([{ role: "user" }], "conversation")).toThrow(ValidationError);
  });
});

describe("validateConversation: the API's compaction block and system messages", () => {
  const compaction = {
    type: "opaque" as const,
    block: { type: "compaction", content: "Summary.", signature: "sig" },
  };
  const system = (content: unknown = "Be brief."): ContentBlock => ({
    type: "opaque",
    block: { type: "agentCompaction:systemMessage", message: { role: "system", content } as never },
  });

  it("accepts a conversation that starts with the compaction block, as its own assistant message", () => {
    const messages = conversation(
      ["assistant", [compaction]],
      ["assistant", [textBlock("Continuing.")]],
      ["user", [textBlock("Next.")]],
    );
    expect(validateConversation(messages)).toEqual([]);
    expect(codes(conversation(["assistant", [textBlock("Hi.")]]))).toEqual([
      "first_message_not_user",
    ]);
  });

  it("accepts system messages after a user turn, before the reply or at the end", () => {
    const messages = conversation(
      ["user", [textBlock("Fix it.")]],
      ["user", [system()]],
      ["user", [system([{ type: "text", text: "Use the tools." }])]],
      ["assistant", [textBlock("Done.")]],
      ["user", [textBlock("Thanks.")]],
      ["user", [system()]],
    );
    expect(validateConversation(messages)).toEqual([]);
    // One that only sets output_config goes anywhere, first included.
    const effort: ContentBlock = {
      type: "opaque",
      block: {
        type: "agentCompaction:systemMessage",
        message: { role: "system", output_config: { effort: "low" } },
      },
    };
    expect(
      validateConversation(
        conversation(
          ["user", [effort]],
          ["user", [textBlock("Go.")]],
          ["assistant", [textBlock("Ok.")]],
        ),
      ),
    ).toEqual([]);
  });

  it("reports a system message first, after an assistant turn, before a user message, or among other blocks", () => {
    expect(codes(conversation(["user", [system()]], ["user", [textBlock("Go.")]]))).toEqual([
      "misplaced_system_message",
    ]);
    const afterCall = conversation(
      ["user", [textBlock("Read it.")]],
      ["assistant", [toolUseBlock("toolu_1", "read")]],
      ["user", [system()]],
      ["user", [toolResultBlock("toolu_1", "a")]],
    );
    expect(codes(afterCall)).toEqual([
      "missing_tool_result",
      "orphan_tool_result",
      "misplaced_system_message",
    ]);
    expect(
      codes(
        conversation(
          ["user", [textBlock("One.")]],
          ["user", [system()]],
          ["user", [textBlock("Two.")]],
        ),
      ),
    ).toEqual(["misplaced_system_message"]);
    expect(
      codes(
        conversation(["user", [textBlock("One."), system()]], ["assistant", [textBlock("Ok.")]]),
      ),
    ).toEqual(["misplaced_system_message"]);
  });
});

describe("validateConversation for each provider", () => {
  const reasoning: ContentBlock = {
    type: "opaque",
    block: { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "E" },
  };
  const compaction: ContentBlock = {
    type: "opaque",
    block: { type: "compaction", id: "cmp_1", encrypted_content: "C" },
  };
  const openai = (messages: Message[]) =>
    validateConversation(messages, { provider: "openai" }).map((p) => p.code);
  const aiSdk = (messages: Message[]) =>
    validateConversation(messages, { provider: "ai-sdk" }).map((p) => p.code);

  it("keeps the Anthropic rules as the default", () => {
    const messages = conversation(["assistant", [textBlock("hi")]]);
    expect(validateConversation(messages, { provider: "anthropic" })).toEqual(
      validateConversation(messages),
    );
    expect(codes(messages)).toEqual(["first_message_not_user"]);
  });

  it("openai: pairs calls and outputs by id anywhere later, the end included", () => {
    const loop = conversation(
      ["user", [textBlock("go")]],
      ["assistant", [reasoning, toolUseBlock("c1", "read"), toolUseBlock("c2", "read")]],
      ["user", [toolResultBlock("c2", "b")]],
      ["assistant", [textBlock("one more")]],
      ["user", [toolResultBlock("c1", "a")]],
    );
    expect(openai(loop)).toEqual([]);
    // Anthropic wants every result in the very next message.
    expect(codes(loop)).toContain("missing_tool_result");
    expect(openai(loop.slice(0, 3))).toEqual(["missing_tool_result"]);
    expect(validateConversation(loop.slice(0, 3), { provider: "openai" })[0]?.message).toBe(
      "No tool output found for function call c1.",
    );
    expect(openai(conversation(["user", [toolResultBlock("c9", "x")]]))).toEqual([
      "orphan_tool_result",
    ]);
    // An assistant message first is fine for OpenAI.
    expect(
      openai(conversation(["assistant", [textBlock("hi")]], ["user", [textBlock("ok")]])),
    ).toEqual([]);
  });

  it("openai: keeps reasoning with the item after it, and compaction items between whole items", () => {
    expect(openai(conversation(["user", [textBlock("go")]], ["assistant", [reasoning]]))).toEqual([
      "reasoning_without_following_item",
    ]);
    expect(
      openai(conversation(["user", [textBlock("go")]], ["assistant", [reasoning, compaction]])),
    ).toContain("reasoning_without_following_item");
    const split = conversation(
      ["user", [textBlock("go")]],
      ["assistant", [toolUseBlock("c1", "read")]],
      ["assistant", [compaction]],
      ["user", [toolResultBlock("c1", "a")]],
    );
    expect(openai(split)).toEqual(["misplaced_compaction"]);
    expect(
      openai(
        conversation(
          ["user", [textBlock("a")]],
          ["assistant", [compaction]],
          ["user", [textBlock("b")]],
        ),
      ),
    ).toEqual([]);
  });

  it("ai-sdk: every call answered before the next user or system message and by the end", () => {
    const ok = conversation(
      ["user", [textBlock("go")]],
      ["assistant", [toolUseBlock("c1", "read")]],
      ["assistant", [textBlock("still working")]],
      ["user", [toolResultBlock("c1", "a")]],
    );
    expect(aiSdk(ok)).toEqual([]);
    const interrupted = conversation(
      ["user", [textBlock("go")]],
      ["assistant", [toolUseBlock("c1", "read")]],
      ["user", [textBlock("never mind")]],
    );
    expect(validateConversation(interrupted, { provider: "ai-sdk" })).toEqual([
      {
        code: "missing_tool_result",
        messageIndex: 1,
        blockIndex: 0,
        toolUseId: "c1",
        message: "Tool result is missing for tool call c1.",
      },
    ]);
    expect(aiSdk(ok.slice(0, 2))).toEqual(["missing_tool_result"]);
    expect(aiSdk([])).toEqual(["empty_conversation"]);
  });

  it("refuses an unknown provider, naming the field", () => {
    expect(() => validateConversation([], { provider: "vertex" as never })).toThrow(
      /provider: must be "anthropic", "openai", "ai-sdk", "chat-completions" or "gemini"/,
    );
  });
});
