import { generateText, type ModelMessage, modelMessageSchema } from "ai";
import { describe, expect, it } from "vitest";
import { answeringModel } from "../../test/support/answering-model.js";
import {
  ANTHROPIC_BLOCK_TYPES,
  FOREIGN_CONVERSATIONS,
  RESPONSES_ITEM_TYPES,
} from "../../test/support/foreign-conversations.js";
import { fromAnthropicMessages } from "../anthropic/index.js";
import { BOOKKEEPING_KEYS } from "../core/bookkeeping-keys.js";
import { fromGeminiContents } from "../gemini/index.js";
import { fromResponsesInput } from "../openai/index.js";
import { isAiSdkOpaque } from "./foreign-parts.js";
import { fromModelMessages, toModelMessages } from "./model-messages.js";

// Other adapters' conversations hold their APIs' blocks as opaque blocks (Anthropic's server
// tools and documents, Gemini's parts, Responses items, LangChain's standard blocks, Chat
// Completions' reasoning): `toModelMessages` sends none, as parts the AI SDK's own prompt
// validation refuses. Its own opaque parts still go out exactly as they came.

// The AI SDK logs its warnings to the console, which the test setup refuses.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const model = () => answeringModel("Done.");

const MARK = /"(?:aiSdk|openai|chatCompletions|gemini|langchain|agentCompaction):/;

/** Where the messages hold what the AI SDK refuses, a mark, or an empty message. */
function strayParts(messages: readonly ModelMessage[]): string[] {
  const found: string[] = [];
  for (const [index, message] of messages.entries()) {
    const parsed = modelMessageSchema.safeParse(message);
    if (!parsed.success) found.push(`${index}: ${JSON.stringify(message.content)}`);
    if (Array.isArray(message.content) && message.content.length === 0)
      found.push(`${index}: empty content`);
    if (MARK.test(JSON.stringify(message))) found.push(`${index}: mark`);
  }
  return found;
}

describe("toModelMessages sends only AI SDK parts", () => {
  for (const [name, conversation] of Object.entries(FOREIGN_CONVERSATIONS)) {
    it(`from ${name}: the AI SDK's validation takes every message`, async () => {
      const messages = toModelMessages(conversation());
      expect(strayParts(messages)).toEqual([]);
      await expect(generateText({ model: model(), messages })).resolves.toMatchObject({
        text: "Done.",
      });
    });
  }

  it("leaves out exactly the other APIs' blocks, and a message of nothing else", () => {
    const roles = (messages: ModelMessage[]) => messages.map((message) => message.role);
    const gemini = toModelMessages(FOREIGN_CONVERSATIONS["Gemini"]!());
    // The model's message of only a thought is left out.
    expect(roles(gemini)).toEqual(["user", "assistant", "tool", "user"]);
    expect(gemini[1]!.content).toEqual([
      { type: "tool-call", toolCallId: "call_1", toolName: "read", input: { p: 1 } },
    ]);
    const responses = toModelMessages(FOREIGN_CONVERSATIONS["OpenAI Responses"]!());
    expect(responses[0]).toEqual({ role: "user", content: [{ type: "text", text: "Read a.ts" }] });
    // A tool output of only a Responses file part: an empty text.
    expect(responses[2]).toMatchObject({
      role: "tool",
      content: [{ type: "tool-result", toolCallId: "call_1", output: { type: "text", value: "" } }],
    });
  });

  it("sends Anthropic's compaction block as the text part its provider takes, not a Responses compaction item", () => {
    const anthropic = toModelMessages(
      fromAnthropicMessages([
        { role: "user", content: "hi" },
        { role: "assistant", content: [{ type: "compaction", content: "Summary." }] },
        { role: "user", content: "go on" },
      ] as never),
    );
    expect(anthropic[1]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Summary.", providerOptions: { anthropic: { type: "compaction" } } },
      ],
    });
    const responses = toModelMessages(
      fromResponsesInput([
        { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] },
        { type: "compaction", id: "cmp_1", encrypted_content: "Y21w" },
        { type: "message", role: "user", content: [{ type: "input_text", text: "go on" }] },
      ] as never),
    );
    expect(responses.map((message) => message.role)).toEqual(["user", "user"]);
  });

  it("gives the AI SDK's own opaque parts back as they came", () => {
    const messages: ModelMessage[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "Read a.ts" },
          { type: "file", data: "JVBERi0=", mediaType: "application/pdf" },
        ],
        providerOptions: { openai: { note: "kept" } },
      },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "Hm.", providerOptions: { openai: { itemId: "rs_1" } } },
          { type: "tool-call", toolCallId: "c1", toolName: "read", input: { p: 1 } },
          { type: "tool-approval-request", approvalId: "ap_1", toolCallId: "c1" },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-approval-response", approvalId: "ap_1", approved: true },
          {
            type: "tool-result",
            toolCallId: "c1",
            toolName: "read",
            output: {
              type: "content",
              value: [
                { type: "text", text: "a" },
                { type: "file-data", data: "JVBERi0=", mediaType: "application/pdf" },
                { type: "media", data: "AAAA", mediaType: "audio/wav" },
                { type: "file-url", url: "https://x.dev/a.pdf" },
                { type: "custom", providerOptions: { openai: { kind: "x" } } },
              ],
            },
          },
        ],
      },
      {
        role: "assistant",
        content: [
          {
            type: "tool-call",
            toolCallId: "ws",
            toolName: "search",
            input: {},
            providerExecuted: true,
          },
          {
            type: "tool-result",
            toolCallId: "ws",
            toolName: "search",
            output: { type: "json", value: [] },
          },
          {
            type: "text",
            text: "Summary.",
            providerOptions: { anthropic: { type: "compaction" } },
          },
          { type: "reasoning", text: "Done." },
        ],
        providerOptions: { openai: { note: "last" } },
      },
      { role: "user", content: "Thanks." },
    ];
    expect(toModelMessages(fromModelMessages(messages))).toEqual(messages);
  });

  it("reads the AI SDK's parts as its own, and other APIs' blocks as theirs", () => {
    const own = [
      { type: "text", text: "x" },
      { type: "image", image: "AAAA" },
      { type: "file", data: "JVBERi0=", mediaType: "application/pdf" },
      { type: "reasoning", text: "r", providerOptions: { openai: {} } },
      { type: "tool-call", toolCallId: "c", toolName: "n", input: {}, providerExecuted: true },
      { type: "tool-result", toolCallId: "c", toolName: "n", output: { type: "json", value: 1 } },
      { type: "tool-approval-request", approvalId: "a", toolCallId: "c" },
      { type: "tool-approval-response", approvalId: "a", approved: false },
      { type: "media", data: "AAAA", mediaType: "audio/wav" },
      { type: "file-data", data: "AAAA", mediaType: "application/pdf" },
      { type: "image-file-id", fileId: "f" },
      { type: "custom" },
      { type: "compaction", content: "Summary.", "aiSdk:providerOptions": {} },
    ];
    for (const part of own) expect(isAiSdkOpaque(part), JSON.stringify(part)).toBe(true);
    for (const type of Object.keys(RESPONSES_ITEM_TYPES))
      expect(isAiSdkOpaque({ type, id: "x" }), type).toBe(false);
    for (const type of Object.keys(ANTHROPIC_BLOCK_TYPES))
      expect(isAiSdkOpaque({ type, content: null }), type).toBe(type === "compaction");
    const foreign = [
      { text: "hm", thought: true, thoughtSignature: "c2ln" },
      { executableCode: { language: "PYTHON", code: "print(1)" } },
      { type: "chatCompletions:reasoning", reasoning_content: "r" },
      { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "e" },
      { type: "reasoning", reasoning: "r" },
      { type: "file", mimeType: "application/pdf", data: "x" },
      { type: "file", file: { file_id: "f" } },
      { type: "image", url: "https://x.dev/a.png" },
      { type: "audio", data: "x", mimeType: "audio/wav" },
      { type: "server_tool_call", id: "c", name: "n", args: {} },
      { type: "non_standard", value: {} },
      { type: "input_file", file_id: "f", [`${BOOKKEEPING_KEYS.openai}:continues`]: true },
      {
        type: "file",
        data: "x",
        mediaType: "a/b",
        [`${BOOKKEEPING_KEYS.chatCompletions}:part`]: true,
      },
      { type: "custom", [`${BOOKKEEPING_KEYS.langchain}:message`]: {} },
    ];
    for (const block of foreign) expect(isAiSdkOpaque(block), JSON.stringify(block)).toBe(false);
  });
});

describe("another model's image in an assistant message", () => {
  it("goes as the file part the AI SDK's assistant content takes (review 59f, F1)", async () => {
    const ours = fromGeminiContents([
      { role: "user", parts: [{ text: "Draw a cat." }] },
      {
        role: "model",
        parts: [
          { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
          { text: "Here is the cat." },
        ],
      },
      { role: "user", parts: [{ text: "Make it blue." }] },
    ]);
    const messages = toModelMessages(ours);
    expect(messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "file", data: "iVBORw0KGgo=", mediaType: "image/png" },
        { type: "text", text: "Here is the cat." },
      ],
    });
    expect(strayParts(messages)).toEqual([]);
    await expect(generateText({ model: model(), messages })).resolves.toMatchObject({
      text: "Done.",
    });
  });
});
