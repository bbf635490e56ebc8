import { describe, expect, it } from "vitest";
import { answeringResponsesApi } from "../../test/support/answering-responses-api.js";
import {
  ANTHROPIC_BLOCK_TYPES,
  FOREIGN_CONVERSATIONS,
  RESPONSES_ITEM_TYPES,
} from "../../test/support/foreign-conversations.js";
import { fromModelMessages } from "../ai-sdk/index.js";
import { BOOKKEEPING_KEYS } from "../core/bookkeeping-keys.js";
import type { Message } from "../core/message.js";
import { isResponsesOpaque } from "./foreign-items.js";
import { PART_TYPES } from "./items-in.js";
import { fromResponsesInput } from "./responses-input.js";
import { toResponsesInput } from "./responses-output.js";

// Other adapters' conversations hold their APIs' blocks as opaque blocks (Anthropic's server
// tools, documents and compaction, Gemini's parts, the AI SDK's and LangChain's parts, Chat
// Completions' reasoning): `toResponsesInput` sends none, only the Responses API's own.

const MARK = /^(?:aiSdk|openai|chatCompletions|gemini|langchain|agentCompaction)(?::|$)/;

/** Where the input holds what the Responses API does not take: each path, with why. */
function strayItems(input: readonly unknown[]): string[] {
  const found: string[] = [];
  const marks = (value: Record<string, unknown>, path: string) => {
    for (const key of Object.keys(value)) if (MARK.test(key)) found.push(`${path}.${key}: mark`);
  };
  for (const [index, raw] of input.entries()) {
    const item = raw as Record<string, unknown>;
    const type = item["type"] ?? "message";
    if (!Object.hasOwn(RESPONSES_ITEM_TYPES, String(type)))
      found.push(`${index}: type ${String(type)}`);
    if (type === "message" && typeof item["role"] !== "string") found.push(`${index}: no role`);
    marks(item, String(index));
    const parts = type === "message" ? item["content"] : item["output"];
    if (!Array.isArray(parts)) continue;
    if (type === "message" && parts.length === 0) found.push(`${index}: empty content`);
    for (const [at, part] of (parts as Record<string, unknown>[]).entries()) {
      if (!PART_TYPES.has(String(part["type"])))
        found.push(`${index}.${at}: part ${String(part["type"])}`);
      marks(part, `${index}.${at}`);
    }
  }
  return found;
}

describe("toResponsesInput sends only the Responses API's items and parts", () => {
  const api = answeringResponsesApi();

  for (const [name, conversation] of Object.entries(FOREIGN_CONVERSATIONS)) {
    it(`from ${name}: no other API's item or part, no mark, no empty item`, async () => {
      const input = toResponsesInput(conversation());
      expect(strayItems(input)).toEqual([]);
      await api.client.responses.create({ model: "gpt-test", input });
      expect(api.server.refusals).toEqual([]);
      const body = api.server.requests.at(-1)!.body as { input: unknown[] };
      expect(strayItems(body.input)).toEqual([]);
    });
  }

  it("leaves out exactly the other APIs' blocks", () => {
    const types = (messages: Message[]) =>
      toResponsesInput(messages).map((item) => item.type ?? "message");
    expect(types(FOREIGN_CONVERSATIONS["Anthropic"]!())).toEqual([
      "message",
      "message",
      "function_call",
      "function_call_output",
      "message",
      "message",
    ]);
    expect(types(FOREIGN_CONVERSATIONS["Gemini"]!())).toEqual([
      "message",
      "function_call",
      "function_call_output",
      "message",
    ]);
    // The AI SDK's tool output of a text and a file keeps its text only.
    const aiSdk = toResponsesInput(FOREIGN_CONVERSATIONS["AI SDK"]!());
    expect(aiSdk.find((item) => item.type === "function_call_output")).toEqual({
      type: "function_call_output",
      call_id: "call_1",
      output: [{ type: "input_text", text: "a" }],
    });
  });

  it("gives its own items back as they came, marks and all", () => {
    const input = [
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_file", file_id: "file_1" },
          { type: "input_text", text: "Read a.ts" },
          { type: "input_audio", input_audio: { data: "AAAA", format: "wav" } },
        ],
      },
      { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "ZW5j" },
      { type: "function_call", call_id: "call_1", name: "read", arguments: "{}" },
      {
        type: "function_call_output",
        call_id: "call_1",
        output: [{ type: "input_file", file_id: "file_2" }],
      },
      { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search" } },
      { type: "item_reference", id: "msg_0" },
      { type: "mcp_list_tools", id: "ml_1", server_label: "s", tools: [] },
      { type: "hologram_call", id: "hc_1", payload: {} },
      { type: "message", role: "user", content: [{ type: "input_text", text: "Again." }] },
      { type: "compaction", id: "cmp_1", encrypted_content: "Y21w" },
      { type: "message", role: "user", content: [{ type: "input_text", text: "More." }] },
    ];
    expect(toResponsesInput(fromResponsesInput(input as never))).toEqual(input);
  });

  it("writes a tool output of only other APIs' parts as an empty text", () => {
    const messages = fromModelMessages([
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "c", toolName: "r", input: {} }],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c",
            toolName: "r",
            output: {
              type: "content",
              value: [{ type: "file-data", data: "JVBERi0=", mediaType: "application/pdf" }],
            },
          },
        ],
      },
    ]);
    expect(toResponsesInput(messages).at(-1)).toEqual({
      type: "function_call_output",
      call_id: "c",
      output: "",
    });
  });

  it("leaves out a reasoning item whose following item is another API's block", () => {
    const messages = fromResponsesInput([
      { type: "message", role: "user", content: [{ type: "input_text", text: "go" }] },
    ] as never);
    const base = messages[0]!;
    const reasoning = { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "e" };
    const assistant = (content: Message["content"]): Message => ({
      ...base,
      id: `a${content.length}`,
      role: "assistant",
      content,
    });
    const gemini = { type: "opaque", block: { text: "t", thought: true } } as const;
    const lone = toResponsesInput([
      base,
      assistant([{ type: "opaque", block: reasoning }, gemini]),
    ]);
    expect(lone.map((item) => item.type ?? "message")).toEqual(["message"]);
    const kept = toResponsesInput([
      base,
      assistant([{ type: "opaque", block: reasoning }, gemini, { type: "text", text: "Hi." }]),
    ]);
    expect(kept.map((item) => item.type ?? "message")).toEqual(["message", "reasoning", "message"]);
  });

  it("reads every item type of the Responses API as its own, and other APIs' blocks as theirs", () => {
    for (const type of Object.keys(RESPONSES_ITEM_TYPES)) {
      const item = type === "reasoning" ? { type, id: "rs", summary: [] } : { type, id: "x" };
      expect(isResponsesOpaque(item), type).toBe(true);
    }
    for (const type of PART_TYPES) expect(isResponsesOpaque({ type }), type).toBe(true);
    for (const type of ["hologram_call", "hologram_call_output", "input_video", "output_audio"])
      expect(isResponsesOpaque({ type }), type).toBe(true);
    for (const type of Object.keys(ANTHROPIC_BLOCK_TYPES))
      expect(isResponsesOpaque({ type, content: null }), type).toBe(false);
    expect(isResponsesOpaque({ type: "hologram_2031", payload: {} })).toBe(false);
    const foreign = [
      { text: "hm", thought: true, thoughtSignature: "c2ln" },
      { executableCode: { language: "PYTHON", code: "print(1)" } },
      { type: "chatCompletions:reasoning", reasoning_content: "r" },
      { type: "reasoning", text: "r", providerOptions: { openai: {} } },
      { type: "reasoning", reasoning: "r" },
      { type: "compaction", content: "summary", encrypted_content: "e" },
      { type: "tool-approval-request", approvalId: "a", toolCallId: "c" },
      { type: "file", data: "x", mediaType: "application/pdf" },
      { type: "file", mimeType: "application/pdf", data: "x" },
      { type: "tool_call", id: "c", name: "n", args: {} },
      { type: "server_tool_call", id: "c", name: "n", args: {} },
      { type: "invalid_tool_call", id: "c", name: "n", args: "{" },
      { type: "input_audio", [`${BOOKKEEPING_KEYS.chatCompletions}:part`]: true },
      { type: "refusal", [`${BOOKKEEPING_KEYS.gemini}:content`]: {} },
    ];
    for (const block of foreign)
      expect(isResponsesOpaque(block), JSON.stringify(block)).toBe(false);
    expect(
      isResponsesOpaque({ type: "input_file", [`${BOOKKEEPING_KEYS.openai}:continues`]: true }),
    ).toBe(true);
  });
});
