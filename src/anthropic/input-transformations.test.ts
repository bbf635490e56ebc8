import { describe, expect, it } from "vitest";
import { AgentSession } from "../session/agent-session.js";
import { appendAnthropicResponse } from "./response.js";

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
});
