import { describe, expect, it } from "vitest";
import { MemoryStore } from "../store/memory-store.js";
import { openSession } from "../store/stored-session.js";
import { appendAnthropicResponse } from "./response.js";

describe("appendAnthropicResponse with a store-backed session", () => {
  it("resolves once the reply and its usage are stored, and another worker sees them", async () => {
    const store = new MemoryStore();
    const session = await openSession(store, "conversation-7", { contextLimit: 10_000 });
    await session.addUserText("list the files");
    const appended = await appendAnthropicResponse(session, {
      content: [
        { type: "text", text: "Listing.", citations: null },
        { type: "tool_use", id: "toolu_1", name: "ls", input: { path: "." } },
      ],
      usage: { input_tokens: 40, output_tokens: 12 } as never,
    });
    expect(appended.message?.content[1]).toMatchObject({ type: "tool_use", id: "toolu_1" });
    expect(appended.usage).toMatchObject({ inputTokens: 40, outputTokens: 12 });
    const other = await openSession(store, "conversation-7", { contextLimit: 10_000 });
    expect(other.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    await other.addToolResults([{ type: "tool_result", tool_use_id: "toolu_1", content: "a.ts" }]);
  });
});
