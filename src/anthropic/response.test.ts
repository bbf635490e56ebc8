import type { Message as AnthropicMessage } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import { estimateMessageTokens } from "../core/message-memo.js";
import { AgentSession } from "../session/agent-session.js";
import type { CompactionEvent } from "../session/events.js";
import { toAnthropicMessages } from "./request.js";
import { appendAnthropicResponse } from "./response.js";

/** Each response a new id, as the API gives (the same response twice is refused). */
let responses = 0;

function response(
  content: unknown[],
  usage: Partial<AnthropicMessage["usage"]> | null = {
    input_tokens: 100,
    output_tokens: 20,
    cache_creation_input_tokens: 300,
    cache_read_input_tokens: 600,
  },
): AnthropicMessage {
  responses += 1;
  return {
    id: `msg_${responses}`,
    type: "message",
    role: "assistant",
    model: "claude-test",
    content,
    stop_reason: "end_turn",
    stop_sequence: null,
    usage,
  } as unknown as AnthropicMessage;
}

function session(): AgentSession {
  return new AgentSession({ contextLimit: 100_000, sessionId: "s", compactor: false });
}

describe("appendAnthropicResponse", () => {
  it("appends the reply in the current turn and records usage: input + cache + output", () => {
    const target = session();
    target.addUserText("What is in a.ts?");
    const { message, usage } = appendAnthropicResponse(
      target,
      response([
        { type: "thinking", thinking: "Read it.", signature: "sig==" },
        { type: "text", text: "Reading.", citations: null },
        {
          type: "tool_use",
          id: "toolu_1",
          name: "read",
          input: { path: "a.ts" },
          caller: { type: "direct" },
        },
      ]),
    );
    expect(message?.turnId).toEqual({ owner: "u", number: 1 });
    expect(message?.role).toBe("assistant");
    expect(target.messages.at(-1)).toBe(message);
    expect(usage).toEqual({
      inputTokens: 100,
      outputTokens: 20,
      cacheCreationInputTokens: 300,
      cacheReadInputTokens: 600,
    });
    expect(target.contextUsed).toBe(100 + 300 + 600 + 20);

    const results = target.addToolResults([
      { type: "tool_result", toolUseId: "toolu_1", content: "export const a = 1;", isError: false },
    ]);
    expect(target.contextUsed).toBe(1020 + estimateMessageTokens(results));
  });

  it("sends the reply back exactly as the API gave it", () => {
    const target = session();
    target.addUserText("hi");
    const content = [
      { type: "thinking", thinking: "…", signature: "EqQBCgIYAhIM+/=" },
      { type: "redacted_thinking", data: "EmwKAhgB" },
      {
        type: "server_tool_use",
        id: "srvtoolu_1",
        name: "web_search",
        input: { query: "q" },
        caller: { type: "direct" },
      },
      {
        type: "web_search_tool_result",
        tool_use_id: "srvtoolu_1",
        content: [],
        caller: { type: "direct" },
      },
      { type: "text", text: "Found nothing.", citations: null },
    ];
    appendAnthropicResponse(target, response(content));
    expect(toAnthropicMessages(target.messages)[1]).toEqual({ role: "assistant", content });
  });

  it("appends nothing for an empty reply but still records its usage", () => {
    const target = session();
    target.addUserText("hi");
    const { message } = appendAnthropicResponse(
      target,
      response([], { input_tokens: 50, output_tokens: 3 }),
    );
    expect(message).toBeUndefined();
    expect(target.messages).toHaveLength(1);
    expect(target.contextUsed).toBe(53);
  });

  it("records nothing when the response has no usage", () => {
    const target = session();
    target.addUserText("hi");
    const before = target.contextUsed;
    const { usage, message } = appendAnthropicResponse(
      target,
      response([{ type: "text", text: "yo" }], null),
    );
    expect(usage).toBeUndefined();
    expect(target.contextUsed).toBe(before + estimateMessageTokens(message!));
  });

  it("rejects a malformed response before touching the session", () => {
    const target = session();
    target.addUserText("hi");
    expect(() => appendAnthropicResponse(target, { content: "nope" } as never)).toThrow(
      ValidationError,
    );
    expect(() => appendAnthropicResponse(target, response([{ type: "text", text: 1 }]))).toThrow(
      /\[0\]\.text/,
    );
    expect(() =>
      appendAnthropicResponse(
        target,
        response([{ type: "text", text: "fine" }], { input_tokens: -5, output_tokens: 1 }),
      ),
    ).toThrow(/input_tokens/);
    expect(target.messages).toHaveLength(1);
  });

  it("needs an open turn", () => {
    expect(() =>
      appendAnthropicResponse(session(), response([{ type: "text", text: "a" }])),
    ).toThrow(ValidationError);
  });
});

describe("appendAnthropicResponse: context editing and cache diagnostics", () => {
  it("returns the applied edits and the cache diagnosis, and the session's observers hear them", () => {
    const events: CompactionEvent[] = [];
    const target = new AgentSession({
      contextLimit: 100_000,
      sessionId: "s",
      compactor: false,
      onEvent: (event) => events.push(event),
    });
    target.addUserText("Go.");
    const applied = [
      { type: "clear_thinking_20251015", cleared_thinking_turns: 2, cleared_input_tokens: 300 },
      { type: "clear_tool_uses_20250919", cleared_tool_uses: 4, cleared_input_tokens: 1200 },
    ];
    const reason = { type: "messages_changed", cache_missed_input_tokens: 5000 };
    const result = appendAnthropicResponse(target, {
      ...response([{ type: "text", text: "Done." }]),
      context_management: { applied_edits: applied },
      diagnostics: { cache_miss_reason: reason },
    } as never);
    expect(result.appliedEdits).toEqual([
      { type: "clear_thinking_20251015", clearedThinkingTurns: 2, clearedInputTokens: 300 },
      { type: "clear_tool_uses_20250919", clearedToolUses: 4, clearedInputTokens: 1200 },
    ]);
    expect(result.cacheMissReason).toEqual({
      type: "messages_changed",
      cacheMissedInputTokens: 5000,
    });
    // A cache that did not miss is reported too, as `null`.
    appendAnthropicResponse(target, {
      ...response([]),
      diagnostics: { cache_miss_reason: null },
    } as never);
    expect(events).toEqual([
      { type: "context_edits_applied", edits: applied, clearedInputTokens: 1500 },
      { type: "cache_diagnosis", reason },
      { type: "cache_diagnosis", reason: null },
    ]);
  });

  it("hands nothing to a session without the hook, and checks nothing for it", () => {
    const target = session();
    target.addUserText("Go.");
    const bare = {
      addAssistant: target.addAssistant.bind(target),
      recordUsage: target.recordUsage.bind(target),
    };
    const result = appendAnthropicResponse(bare, {
      ...response([{ type: "text", text: "Done." }]),
      diagnostics: { cache_miss_reason: { type: "messages_changed", note: 1n } },
    } as never);
    expect(result.cacheMissReason).toEqual({ type: "messages_changed" });
    expect(() =>
      appendAnthropicResponse(target, {
        ...response([]),
        diagnostics: { cache_miss_reason: { type: "messages_changed", note: 1n } },
      } as never),
    ).toThrow(/cache_miss_reason/);
  });

  it("reports nothing it was not sent: no edits, no miss, no fields", () => {
    const target = session();
    target.addUserText("Go.");
    const plain = appendAnthropicResponse(target, response([{ type: "text", text: "a" }]));
    expect(plain).not.toHaveProperty("appliedEdits");
    expect(plain).not.toHaveProperty("cacheMissReason");
    const quiet = appendAnthropicResponse(target, {
      ...response([{ type: "text", text: "b" }]),
      context_management: { applied_edits: [] },
      diagnostics: null,
    } as never);
    expect(quiet.appliedEdits).toEqual([]);
    expect(quiet.cacheMissReason).toBeNull();
    expect(() =>
      appendAnthropicResponse(target, {
        ...response([]),
        context_management: { applied_edits: [{ cleared_tool_uses: 1 }] },
      } as never),
    ).toThrow(/applied_edits/);
  });
});
