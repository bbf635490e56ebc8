import { SystemMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { fromChatMessages } from "../chat-completions/index.js";
import { fromResponsesInput } from "../openai/index.js";
import { toLangChainMessages } from "./index.js";

// Another API's system message of parts went to LangChain with that API's part types (a
// Responses item's `input_text`), which LangChain's chat models do not take: its text parts go
// as `text` blocks.

describe("toLangChainMessages: another API's system message of parts", () => {
  it("a Responses developer item: its input_text parts as text blocks", () => {
    const ours = fromResponsesInput([
      { role: "user", content: "Read a.ts" },
      { type: "message", role: "developer", content: [{ type: "input_text", text: "Be brief." }] },
    ]);
    const system = toLangChainMessages(ours)[1]!;
    expect(system).toBeInstanceOf(SystemMessage);
    expect(system.content).toEqual([{ type: "text", text: "Be brief." }]);
  });

  it("a Chat Completions developer message: its text parts as they were", () => {
    const ours = fromChatMessages([
      { role: "user", content: "Read a.ts" },
      { role: "developer", content: [{ type: "text", text: "Be brief." }] },
    ]);
    expect(toLangChainMessages(ours)[1]!.content).toEqual([{ type: "text", text: "Be brief." }]);
  });
});
