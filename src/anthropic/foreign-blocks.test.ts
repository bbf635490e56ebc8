import Anthropic from "@anthropic-ai/sdk";
import type {
  BetaBase64ImageSource,
  BetaContentBlockParam,
  BetaFileImageSource,
  BetaURLImageSource,
} from "@anthropic-ai/sdk/resources/beta/messages/messages";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANTHROPIC_BLOCK_TYPES } from "../../test/support/foreign-conversations.js";
import { MessagesApiServer } from "../../test/support/messages-api-server.js";
import { fromModelMessages } from "../ai-sdk/index.js";
import { CHAT_COMPLETIONS_KEY, fromChatMessages } from "../chat-completions/index.js";
import { BOOKKEEPING_KEYS } from "../core/bookkeeping-keys.js";
import type { Message } from "../core/message.js";
import { fromGeminiContents, GEMINI_KEY } from "../gemini/index.js";
import { fromLangChainMessages, LANGCHAIN_KEY } from "../langchain/index.js";
import { fromResponsesInput } from "../openai/index.js";
import { isAnthropicOpaque } from "./foreign-blocks.js";
import { toAnthropicMessages } from "./request.js";

// Other adapters' conversations hold their bookkeeping (`chatCompletions`, `gemini`,
// `langchain` in `extra`) and their APIs' blocks (reasoning, parts, items) as opaque blocks:
// `toAnthropicMessages` sends neither, only the Messages API's blocks and fields.

type FieldsOf<Union extends { type: string }> = {
  [Type in Union["type"]]?: readonly (keyof Extract<Union, { type: Type }> & string)[];
};

/** The fields of each block the conversions below may send, as the SDK types them. */
const BLOCK_FIELDS = {
  text: ["type", "text", "cache_control", "citations"],
  image: ["type", "source", "cache_control"],
  thinking: ["type", "thinking", "signature"],
  redacted_thinking: ["type", "data"],
  tool_use: ["type", "id", "name", "input", "cache_control"],
  tool_result: ["type", "tool_use_id", "content", "is_error", "cache_control"],
  compaction: ["type", "content", "encrypted_content", "signature", "cache_control"],
} as const satisfies FieldsOf<BetaContentBlockParam>;

type ImageSource = BetaBase64ImageSource | BetaURLImageSource | BetaFileImageSource;
const SOURCE_FIELDS = {
  base64: ["type", "media_type", "data"],
  url: ["type", "url"],
  file: ["type", "file_id"],
} as const satisfies FieldsOf<ImageSource>;

const ALLOWED: Record<string, readonly string[]> = BLOCK_FIELDS;
const ALLOWED_SOURCE: Record<string, readonly string[]> = SOURCE_FIELDS;

/** The keys of `record` outside `allowed`, as paths under `path`. */
function outside(record: Record<string, unknown>, allowed: readonly string[], path: string) {
  return Object.keys(record)
    .filter((key) => !allowed.includes(key))
    .map((key) => `${path}.${key}`);
}

/** Where a block sent holds what the Messages API does not take: each path, with why. */
function strayInBlock(block: unknown, path: string): string[] {
  if (typeof block !== "object" || block === null) return [`${path}: not a block`];
  const record = block as Record<string, unknown>;
  const type = String(record["type"]);
  const allowed = ALLOWED[type];
  if (allowed === undefined) return [`${path}: type ${type}`];
  const found = outside(record, allowed, path);
  if (type === "image") {
    const source = record["source"] as Record<string, unknown>;
    found.push(...outside(source, ALLOWED_SOURCE[String(source["type"])] ?? [], `${path}.source`));
  }
  const content = record["content"];
  if (type === "tool_result" && Array.isArray(content))
    for (const [index, part] of content.entries())
      found.push(...strayInBlock(part, `${path}.content.${index}`));
  return found;
}

/** Where messages sent hold what the Messages API does not take, or an empty message. */
function strayFields(params: unknown): string[] {
  const found: string[] = [];
  for (const [index, message] of (params as Record<string, unknown>[]).entries()) {
    found.push(...outside(message, ["role", "content"], String(index)));
    const content = message["content"];
    if (message["role"] === "system") {
      if (typeof content !== "string") found.push(`${index}: system content not a string`);
    } else if (Array.isArray(content)) {
      if (content.length === 0) found.push(`${index}: empty content`);
      for (const [blockIndex, block] of content.entries())
        found.push(...strayInBlock(block, `${index}.content.${blockIndex}`));
    } else if (typeof content !== "string") found.push(`${index}: content`);
  }
  return found;
}

const PNG = "iVBORw0KGgo=";
const conversations: Record<string, () => Message[]> = {
  "Chat Completions": () =>
    fromChatMessages([
      { role: "user", content: [{ type: "text", text: "Read a.ts" }] },
      { role: "system", content: "Be brief.", name: "ops" },
      {
        role: "assistant",
        content: null,
        reasoning_content: "Read it first.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "read", arguments: '{"p":1}' } },
        ],
      } as never,
      { role: "tool", tool_call_id: "call_1", content: "export const a = 1;" },
      {
        role: "user",
        content: [
          { type: "text", text: "And this?" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: "input_audio", input_audio: { data: "AAAA", format: "wav" } },
        ],
      },
      { role: "developer", content: [{ type: "text", text: "Answer in English." }] },
      { role: "assistant", content: "A picture.", reasoning_content: "Looked." } as never,
    ]),
  Gemini: () =>
    fromGeminiContents([
      {
        role: "user",
        parts: [{ text: "Read a.ts" }, { inlineData: { mimeType: "image/png", data: PNG } }],
      },
      {
        role: "model",
        parts: [
          { text: "Read it first.", thought: true, thoughtSignature: "c2ln" },
          {
            functionCall: { id: "call_1", name: "read", args: { p: 1 } },
            thoughtSignature: "c2lnMg==",
          },
        ],
      },
      {
        role: "user",
        parts: [{ functionResponse: { id: "call_1", name: "read", response: { output: "a" } } }],
      },
      { role: "model", parts: [{ text: "Done.", thought: true, thoughtSignature: "c2lnMw==" }] },
      { role: "user", parts: [{ text: "Thanks." }] },
    ]),
  LangChain: () =>
    fromLangChainMessages([
      new HumanMessage({ content: "Read a.ts", id: "u1" }),
      new SystemMessage({ content: "Be brief.", id: "sys", name: "ops" }),
      new AIMessage({
        id: "ai_1",
        content: [
          { type: "reasoning", reasoning: "Read it first." },
          { type: "text", text: "Reading." },
        ],
        tool_calls: [{ id: "call_1", name: "read", args: { p: 1 }, type: "tool_call" }],
        response_metadata: { model_provider: "openai" },
      }),
      new ToolMessage({ content: "a", tool_call_id: "call_1", name: "read", id: "t1" }),
      new HumanMessage({
        content: [
          { type: "text", text: "And this?" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      }),
      new AIMessage({ content: "A picture.", name: "model" }),
    ]),
  "OpenAI Responses": () =>
    fromResponsesInput([
      { type: "message", role: "user", content: [{ type: "input_text", text: "Read a.ts" }] },
      { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "ZW5j" },
      {
        type: "function_call",
        id: "fc_1",
        call_id: "call_1",
        name: "read",
        arguments: '{"p":1}',
        status: "completed",
      },
      {
        type: "function_call_output",
        call_id: "call_1",
        output: [
          { type: "input_text", text: "a" },
          { type: "input_file", file_id: "file_1" },
        ],
      },
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "And this?" },
          { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
          { type: "input_file", file_id: "file_2" },
        ],
      },
      { type: "message", role: "developer", content: [{ type: "input_text", text: "Be brief." }] },
      {
        type: "web_search_call",
        id: "ws_1",
        status: "completed",
        action: { type: "search", query: "x" },
      },
      { type: "reasoning", id: "rs_2", summary: [], encrypted_content: "ZW5jMg==" },
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "A picture.", annotations: [] }],
      },
    ] as never),
  "AI SDK": () =>
    fromModelMessages([
      {
        role: "user",
        content: [
          { type: "text", text: "Read a.ts" },
          { type: "image", image: PNG, mediaType: "image/png" },
          { type: "file", data: "JVBERi0=", mediaType: "application/pdf" },
        ],
      },
      { role: "system", content: "Be brief.", providerOptions: { openai: {} } },
      {
        role: "assistant",
        content: [
          {
            type: "reasoning",
            text: "Read it first.",
            providerOptions: { openai: { itemId: "rs_1", reasoningEncryptedContent: "ZW5j" } },
          },
          { type: "tool-call", toolCallId: "call_1", toolName: "read", input: { p: 1 } },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "call_1",
            toolName: "read",
            output: { type: "text", value: "a" },
          },
        ],
      },
      { role: "user", content: "Thanks." },
    ]),
};

describe("toAnthropicMessages sends only the Messages API's blocks and fields", () => {
  let server: MessagesApiServer;
  let client: Anthropic;
  beforeAll(async () => {
    server = await MessagesApiServer.start();
    client = new Anthropic({ baseURL: server.url, apiKey: "sk-ant-test", maxRetries: 0 });
  });
  afterAll(() => server.close());

  it("names each adapter's key in the bookkeeping table", () => {
    expect(CHAT_COMPLETIONS_KEY).toBe(BOOKKEEPING_KEYS.chatCompletions);
    expect(GEMINI_KEY).toBe(BOOKKEEPING_KEYS.gemini);
    expect(LANGCHAIN_KEY).toBe(BOOKKEEPING_KEYS.langchain);
  });

  for (const [name, conversation] of Object.entries(conversations)) {
    it(`from ${name}: no other API's block or field, no empty message`, async () => {
      const params = toAnthropicMessages(conversation());
      expect(strayFields(params)).toEqual([]);
      await client.messages.create({ model: "claude-test", max_tokens: 16, messages: params });
      const body = server.requests.at(-1)!.body as { messages: unknown };
      expect(strayFields(body.messages)).toEqual([]);
    });
  }

  it("leaves out a message of only other APIs' blocks, its neighbours joined as usual", () => {
    const messages = fromResponsesInput([
      { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] },
      { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "ZW5j" },
      { type: "message", role: "user", content: [{ type: "input_text", text: "again" }] },
    ] as never);
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(toAnthropicMessages(messages)).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "hi" },
          { type: "text", text: "again" },
        ],
      },
    ]);
    const thought = fromGeminiContents([
      { role: "user", parts: [{ text: "hi" }] },
      { role: "model", parts: [{ text: "hm", thought: true, thoughtSignature: "c2ln" }] },
    ]);
    expect(toAnthropicMessages(thought)).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
    ]);
  });

  it("sends a tool result of only other APIs' parts without content", () => {
    const messages = fromResponsesInput([
      { type: "message", role: "user", content: [{ type: "input_text", text: "go" }] },
      { type: "function_call", call_id: "call_1", name: "read", arguments: "{}" },
      {
        type: "function_call_output",
        call_id: "call_1",
        output: [{ type: "input_file", file_id: "file_1" }],
      },
    ] as never);
    expect(toAnthropicMessages(messages).at(-1)).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "call_1" }],
    });
  });

  it("reads every block type of the Messages API as its own, and other APIs' as theirs", () => {
    for (const type of Object.keys(ANTHROPIC_BLOCK_TYPES))
      expect(isAnthropicOpaque({ type, content: null }), type).toBe(true);
    expect(isAnthropicOpaque({ type: "hologram_2031", payload: {} })).toBe(true);
    const foreign = [
      { text: "hm", thought: true, thoughtSignature: "c2ln" },
      { type: "chatCompletions:reasoning", reasoning_content: "r" },
      { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "e" },
      { type: "reasoning", text: "r", providerOptions: { openai: {} } },
      { type: "compaction", id: "cmp_1", encrypted_content: "e" },
      { type: "tool-approval-request", approvalId: "a", toolCallId: "c" },
      { type: "web_search_call", id: "ws_1", status: "completed" },
      { type: "function_call_output", call_id: "c", output: "x" },
      { type: "input_file", file_id: "f" },
      { type: "file", data: "x", mediaType: "application/pdf" },
      { type: "image_url", image_url: { url: "https://x.dev/a.png" } },
      { type: "some_part", [`${BOOKKEEPING_KEYS.chatCompletions}:part`]: true },
      { type: "some_part", [`${BOOKKEEPING_KEYS.openai}:item`]: { type: "message" } },
    ];
    for (const block of foreign)
      expect(isAnthropicOpaque(block), JSON.stringify(block)).toBe(false);
  });
});
