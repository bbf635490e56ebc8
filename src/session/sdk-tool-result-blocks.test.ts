import type { ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { toAnthropicMessages } from "../anthropic/request.js";
import { fromAnthropicMessages } from "../anthropic/turns.js";
import { ValidationError } from "../core/errors.js";
import { AgentSession } from "./agent-session.js";

/**
 * Review 55a's finding 4: `addToolResults` refused the SDK's own `tool_result` param when its
 * content held an image, a document or a search result ("content: Invalid input"), though it
 * takes "the SDK's" shape. It reads them as `fromAnthropicMessages` does, and the next request
 * sends them back as they came.
 */

const PNG = Buffer.alloc(300, 7).toString("base64");
const CONTENT: Record<string, NonNullable<ToolResultBlockParam["content"]>> = {
  "a base64 image": [
    { type: "text", text: "the screenshot" },
    { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
  ],
  "an image by url": [{ type: "image", source: { type: "url", url: "https://x.test/a.png" } }],
  "a document": [
    { type: "document", source: { type: "text", media_type: "text/plain", data: "the doc" } },
  ],
  "a search result": [
    {
      type: "search_result",
      source: "https://x.test/page",
      title: "Page",
      content: [{ type: "text", text: "found" }],
    },
  ],
  "text with the SDK's fields": [
    { type: "text", text: "a", citations: null, cache_control: { type: "ephemeral" } },
  ],
};

function awaitingCall(): AgentSession {
  const session = new AgentSession({ contextLimit: 100_000 });
  session.addUserText("Look at it.");
  session.addAssistant([{ type: "tool_use", id: "toolu_1", name: "look", input: {} }]);
  return session;
}

describe("addToolResults with the SDK's tool_result blocks", () => {
  for (const [name, content] of Object.entries(CONTENT)) {
    it(`takes ${name} as fromAnthropicMessages reads it, and sends it back as it came`, () => {
      const session = awaitingCall();
      const result: ToolResultBlockParam = { type: "tool_result", tool_use_id: "toolu_1", content };
      const message = session.addToolResults([result]);
      const [read] = fromAnthropicMessages([{ role: "user", content: [result] }]);
      expect(message.content).toEqual(read!.content);
      const sent = toAnthropicMessages(session.messages).at(-1);
      expect(sent).toEqual({ role: "user", content: [result] });
    });
  }

  it("names the field of a malformed block, and takes nothing", () => {
    const refused = (content: unknown) => {
      const session = awaitingCall();
      try {
        session.addToolResults([{ type: "tool_result", tool_use_id: "toolu_1", content } as never]);
      } catch (error) {
        expect(session.messages).toHaveLength(2);
        if (ValidationError.isInstance(error)) return error.issues.map((issue) => issue.path);
        throw error;
      }
      throw new Error("taken");
    };
    expect(refused([{ type: "image" }])).toEqual([["content", 0, "source"]]);
    expect(refused([{ type: "text", text: 1 }])).toEqual([["content", 0, "text"]]);
    expect(refused([{ type: "text", text: "a" }, { text: "b" }])).toEqual([["content", 1, "type"]]);
    expect(refused([{ type: "document", source: () => 1 }])).toEqual([["content", 0, "source"]]);
    expect(refused([{ type: "text", text: "a", "openai:item": true }])).toEqual([
      ["content", 0, "openai:item"],
    ]);
    expect(refused(7)).toEqual([["content"]]);
    expect(() =>
      awaitingCall().addToolResults([
        { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "image" }] } as never,
      ]),
    ).toThrow(/tool results\[0\]: content\[0\]\.source: must be an object with a type/);
  });
});
