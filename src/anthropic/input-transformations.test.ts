import { describe, expect, it } from "vitest";
import { refusedPaths as issuesOf } from "../../test/support/refusals.js";
import { AgentSession } from "../session/agent-session.js";
import { MemoryStore } from "../store/memory-store.js";
import { openSession } from "../store/stored-session.js";
import { appendAnthropicResponse } from "./response.js";

function cyclic(): Record<string, unknown> {
  const entry: Record<string, unknown> = { type: "thinking_dropped" };
  entry["self"] = entry;
  return entry;
}

describe("appendAnthropicResponse: what the API changed in the request", () => {
  it("hands a response's input_transformations to the session's observers", async () => {
    const events: unknown[] = [];
    const session = new AgentSession({
      contextLimit: 10_000,
      onEvent: (event) => events.push(event),
    });
    session.addUserText("go on");
    const dropped = {
      type: "thinking_dropped",
      path: "messages.1.content.0",
      reason: "prefix_binding_mismatch",
    };
    appendAnthropicResponse(session, {
      content: [{ type: "text", text: "ok", citations: null }],
      usage: { input_tokens: 10, output_tokens: 2 } as never,
      input_transformations: [dropped],
    });
    expect(events).toEqual([{ type: "input_transformations", transformations: [dropped] }]);
    // None, or an empty list: nothing to report.
    appendAnthropicResponse(session, { content: [], input_transformations: [] });
    expect(events).toHaveLength(1);
  });

  it("refuses a reported field that is not JSON before appending or recording anything", () => {
    const session = new AgentSession({ contextLimit: 200_000 });
    session.addUserText("hello");
    const before = { messages: session.messages.length, used: session.contextUsed };
    const reply = (extra: Record<string, unknown>) => ({
      id: "msg_1",
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: "hi" }],
      usage: { input_tokens: 10, output_tokens: 5 },
      ...extra,
    });
    const wrong: [Record<string, unknown>, string][] = [
      [{ input_transformations: [cyclic()] }, "input_transformations.0"],
      [{ input_transformations: [{ type: "x", n: 1n }] }, "input_transformations.0"],
      [{ input_transformations: [{ type: "x", at: new Date(0) }] }, "input_transformations.0"],
      [{ input_transformations: [7] }, "input_transformations.0"],
      [
        { context_management: { applied_edits: [{ type: "clear", extra: cyclic() }] } },
        "context_management.applied_edits.0",
      ],
      [
        { diagnostics: { cache_miss_reason: { type: "model_changed", f: () => 1 } } },
        "diagnostics.cache_miss_reason",
      ],
    ];
    for (const [extra, path] of wrong) {
      expect(issuesOf(() => appendAnthropicResponse(session, reply(extra) as never))).toEqual([
        path,
      ]);
      expect({ messages: session.messages.length, used: session.contextUsed }).toEqual(before);
    }
    // The message names the field and what is wrong with it.
    expect(() =>
      appendAnthropicResponse(session, reply({ input_transformations: [cyclic()] }) as never),
    ).toThrow(/input_transformations.*circular/s);
    // Nothing was taken: the corrected response is not a duplicate.
    const { message } = appendAnthropicResponse(session, reply({}) as never);
    expect(message?.id).toBe("msg_1");
    expect(session.messages).toHaveLength(2);
    expect(session.contextUsed).toBe(15);
  });

  it("refuses the same before a StoredSession writes anything", async () => {
    const session = await openSession(new MemoryStore(), "s-1", { contextLimit: 200_000 });
    await session.addUserText("hello");
    const response = {
      id: "msg_1",
      content: [{ type: "text", text: "hi" }],
      usage: { input_tokens: 10, output_tokens: 5 },
    };
    expect(
      issuesOf(() =>
        appendAnthropicResponse(session, {
          ...response,
          input_transformations: [cyclic()],
        } as never),
      ),
    ).toEqual(["input_transformations.0"]);
    expect(session.messages).toHaveLength(1);
    await appendAnthropicResponse(session, response as never);
    expect(session.messages).toHaveLength(2);
  });
});
