import { describe, expect, it } from "vitest";
import { fromChatMessages } from "../chat-completions/index.js";
import { withDistinctToolIds } from "../core/distinct-tool-ids.js";
import type { Message } from "../core/message.js";
import { requestProblems } from "../testing/anthropic-rules/request.js";
import { compactAnthropicMessages } from "./compact-messages.js";
import { toAnthropicMessages } from "./request.js";
import { sendableToolId } from "./tool-ids.js";

// The Messages API refuses a tool use id outside ^[a-zA-Z0-9_-]+$ (400: "String should match
// pattern"); other providers write such ids (Kimi's `functions.bash:0`, a gateway's `call_1|fc_1`).

const SENDABLE = /^[a-zA-Z0-9_-]+$/;

describe("tool ids the Messages API refuses", () => {
  it("are sent mended, the same for the call and its result, each id its own", () => {
    expect(sendableToolId("toolu_01AbC-x")).toBe("toolu_01AbC-x");
    const ids = ["functions.bash:0", "functions.bash_0", "call_1|fc_1", "call_1.fc_1"];
    const sent = ids.map(sendableToolId);
    for (const id of sent) expect(id).toMatch(SENDABLE);
    expect(new Set(sent).size).toBe(ids.length);
    expect(ids.map(sendableToolId)).toEqual(sent);
  });

  it("another provider's calls go out with ids the API takes, and a caller's own are mended too", async () => {
    const messages = fromChatMessages([
      { role: "user", content: "List the files." },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "functions.bash:0", type: "function", function: { name: "bash", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "functions.bash:0", content: "a.ts b.ts" },
    ]);
    const wire = JSON.stringify(toAnthropicMessages(messages));
    expect(wire).not.toContain("functions.bash:0");
    const own = [
      { role: "user" as const, content: "List the files." },
      {
        role: "assistant" as const,
        content: [{ type: "tool_use" as const, id: "toolu.01:x", name: "bash", input: {} }],
      },
      {
        role: "user" as const,
        content: [{ type: "tool_result" as const, tool_use_id: "toolu.01:x", content: "a.ts" }],
      },
    ];
    const out = await compactAnthropicMessages(own, { contextLimit: 100_000 });
    const call = out.messages[1]!.content[0] as { id: string };
    const result = out.messages[2]!.content[0] as { tool_use_id: string };
    expect(call.id).toMatch(SENDABLE);
    expect(result.tool_use_id).toBe(call.id);
  });
});

// The Messages API wants each tool use's id distinct in the conversation ("`tool_use` ids must
// be unique"); providers that number each reply's calls send `call_0` every time.
describe("tool ids another provider reused", () => {
  const call = (id: string) => ({
    role: "assistant" as const,
    content: null,
    tool_calls: [{ id, type: "function" as const, function: { name: "ls", arguments: "{}" } }],
  });
  const result = (id: string, content: string) => ({
    role: "tool" as const,
    tool_call_id: id,
    content,
  });
  /** A call and its result. */
  const exchange = (id: string, content: string) => [call(id), result(id, content)];
  const start = { role: "user" as const, content: "List the files." };

  it("go out distinct, each call with its own results, the same conversation always the same", () => {
    const messages = fromChatMessages([
      start,
      ...exchange("call_0", "a.ts"),
      // An id of the caller's that the renaming would have made: never met.
      ...exchange("call_0_2", "b.ts"),
      ...exchange("call_0", "c.ts"),
      { role: "user", content: "And again." },
      ...exchange("call_0", "d.ts"),
    ]);
    // Its first exchange alone, as a session's earlier request: walked once, remembered.
    toAnthropicMessages(messages.slice(0, 3));
    const sent = toAnthropicMessages(messages);
    expect(requestProblems(sent)).toEqual([]);
    const pairs = sent.flatMap((message) =>
      typeof message.content === "string"
        ? []
        : message.content.flatMap((block) =>
            block.type === "tool_use"
              ? [`use ${block.id}`]
              : block.type === "tool_result"
                ? [`result ${block.tool_use_id} ${JSON.stringify(block.content)}`]
                : [],
          ),
    );
    expect(pairs).toEqual([
      "use call_0",
      'result call_0 "a.ts"',
      "use call_0_2",
      'result call_0_2 "b.ts"',
      "use call_0_2_",
      'result call_0_2_ "c.ts"',
      "use call_0_3",
      'result call_0_3 "d.ts"',
    ]);
    expect(toAnthropicMessages(messages)).toEqual(sent);
    // The caller's own id after the reuse is never met either: it is renamed in turn, so the
    // request before it (without it) went the same (review 57d: it renamed the earlier call).
    const later = fromChatMessages([
      start,
      ...exchange("call_0", "a.ts"),
      ...exchange("call_0", "b.ts"),
      ...exchange("call_0_2", "c.ts"),
    ]);
    const idsOf = (messages: readonly Message[]) =>
      withDistinctToolIds(messages).flatMap((message) =>
        message.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : [])),
      );
    expect(idsOf(later)).toEqual(["call_0", "call_0_2", "call_0_2_2"]);
    expect(idsOf(later.slice(0, 5))).toEqual(["call_0", "call_0_2"]);
    const results = toAnthropicMessages(later).flatMap((message) =>
      typeof message.content === "string"
        ? []
        : message.content.flatMap((block) =>
            block.type === "tool_result" ? [block.tool_use_id] : [],
          ),
    );
    expect(results).toEqual(["call_0", "call_0_2", "call_0_2_2"]);
  });

  // Review 53's finding 8: two calls of one message with one id (malformed: the session
  // refuses it) are not a reuse; they go as they came, with their results (lossless).
  it("leaves two calls of one message with one id as they came", () => {
    const twice = {
      role: "assistant" as const,
      content: null,
      tool_calls: [call("call_0").tool_calls[0]!, call("call_0").tool_calls[0]!],
    };
    const messages = fromChatMessages([
      { role: "user", content: "List the files." },
      twice,
      result("call_0", "a.ts"),
      result("call_0", "b.ts"),
    ]);
    expect(withDistinctToolIds(messages)).toBe(messages);
  });
});
