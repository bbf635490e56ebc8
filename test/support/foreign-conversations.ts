import type {
  BetaContentBlock,
  BetaContentBlockParam,
} from "@anthropic-ai/sdk/resources/beta/messages/messages";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { fromModelMessages } from "../../src/ai-sdk/index.js";
import { fromAnthropicMessages } from "../../src/anthropic/index.js";
import { fromChatMessages } from "../../src/chat-completions/index.js";
import type { Message } from "../../src/core/message.js";
import { fromGeminiContents } from "../../src/gemini/index.js";
import { fromLangChainMessages } from "../../src/langchain/index.js";
import { fromResponsesInput } from "../../src/openai/index.js";

/**
 * Conversations each adapter reads, holding the blocks of its API it could not model (kept
 * opaque, for its own writer): what another provider's writer must leave out. Every tool call
 * is answered, and each ends with the user's text, so the rest is a request any API takes.
 */
export const FOREIGN_CONVERSATIONS: Readonly<Record<string, () => Message[]>> = {
  Anthropic: () =>
    fromAnthropicMessages([
      {
        role: "user",
        content: [
          {
            type: "document",
            source: { type: "text", media_type: "text/plain", data: "Notes." },
          },
          { type: "text", text: "What changed?" },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x" } },
          {
            type: "web_search_tool_result",
            tool_use_id: "srvtoolu_1",
            content: [
              {
                type: "web_search_result",
                url: "https://x.dev",
                title: "X",
                encrypted_content: "ZW5j",
                page_age: null,
              },
            ],
          },
          { type: "text", text: "Found it." },
          { type: "tool_use", id: "toolu_1", name: "read", input: { path: "a.ts" } },
        ],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "export const a = 1;" }],
      },
      { role: "assistant", content: [{ type: "compaction", content: "Read a.ts; a = 1." }] },
      { role: "user", content: "Go on." },
      {
        role: "assistant",
        content: [{ type: "server_tool_use", id: "srvtoolu_2", name: "web_fetch", input: {} }],
      },
      { role: "user", content: "Thanks." },
    ] as never),
  Gemini: () =>
    fromGeminiContents([
      { role: "user", parts: [{ text: "Run it." }] },
      {
        role: "model",
        parts: [
          { text: "Run the code first.", thought: true, thoughtSignature: "c2ln" },
          { executableCode: { language: "PYTHON", code: "print(1)" } },
          { codeExecutionResult: { outcome: "OUTCOME_OK", output: "1" } },
          {
            functionCall: { id: "call_1", name: "read", args: { p: 1 } },
            thoughtSignature: "c2ln",
          },
        ],
      },
      {
        role: "user",
        parts: [{ functionResponse: { id: "call_1", name: "read", response: { output: "a" } } }],
      },
      {
        role: "model",
        parts: [{ text: "Only thought.", thought: true, thoughtSignature: "c2lnMw==" }],
      },
      { role: "user", parts: [{ text: "Thanks." }] },
    ]),
  "Chat Completions": () =>
    fromChatMessages([
      { role: "user", content: "Read a.ts" },
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
          { type: "input_audio", input_audio: { data: "AAAA", format: "wav" } },
          { type: "file", file: { file_id: "file_1" } },
        ],
      },
      { role: "assistant", content: "Heard it.", reasoning_content: "Listened." } as never,
      { role: "user", content: "Thanks." },
    ]),
  LangChain: () =>
    fromLangChainMessages([
      new HumanMessage({
        content: [
          { type: "text", text: "Read a.ts" },
          { type: "file", mimeType: "application/pdf", data: "JVBERi0=" },
        ],
      }),
      new AIMessage({
        content: [
          { type: "reasoning", reasoning: "Read it first." },
          { type: "server_tool_call", id: "srv_1", name: "web_search", args: { query: "x" } },
          { type: "text", text: "Reading." },
        ],
        tool_calls: [{ id: "call_1", name: "read", args: { p: 1 }, type: "tool_call" }],
      }),
      new ToolMessage({ content: "a", tool_call_id: "call_1", name: "read" }),
      new AIMessage({ content: [{ type: "reasoning", reasoning: "Nothing else." }] }),
      new HumanMessage("Thanks."),
    ]),
  "AI SDK": () =>
    fromModelMessages([
      {
        role: "user",
        content: [
          { type: "text", text: "Read a.ts" },
          { type: "file", data: "JVBERi0=", mediaType: "application/pdf" },
        ],
      },
      {
        role: "assistant",
        content: [
          {
            type: "reasoning",
            text: "Read it first.",
            providerOptions: { openai: { itemId: "rs_1", reasoningEncryptedContent: "ZW5j" } },
          },
          { type: "tool-call", toolCallId: "call_1", toolName: "read", input: { p: 1 } },
          { type: "tool-approval-request", approvalId: "ap_1", toolCallId: "call_1" },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-approval-response", approvalId: "ap_1", approved: true },
          {
            type: "tool-result",
            toolCallId: "call_1",
            toolName: "read",
            output: {
              type: "content",
              value: [
                { type: "text", text: "a" },
                { type: "file-data", data: "JVBERi0=", mediaType: "application/pdf" },
              ],
            },
          },
        ],
      },
      {
        role: "assistant",
        content: [
          {
            type: "reasoning",
            text: "Searching.",
            providerOptions: { openai: { itemId: "rs_2" } },
          },
          {
            type: "tool-call",
            toolCallId: "ws_1",
            toolName: "web_search",
            input: {},
            providerExecuted: true,
          },
          {
            type: "tool-result",
            toolCallId: "ws_1",
            toolName: "web_search",
            output: { type: "json", value: { results: [] } },
          },
        ],
      },
      { role: "user", content: "Thanks." },
    ]),
  "OpenAI Responses": () =>
    fromResponsesInput([
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_file", file_id: "file_1" },
          { type: "input_text", text: "Read a.ts" },
        ],
      },
      { type: "reasoning", id: "rs_a", summary: [], encrypted_content: "ZW5j" },
      { type: "function_call", call_id: "call_1", name: "read", arguments: '{"p":1}' },
      {
        type: "function_call_output",
        call_id: "call_1",
        output: [{ type: "input_file", file_id: "file_2" }],
      },
      {
        type: "web_search_call",
        id: "ws_1",
        status: "completed",
        action: { type: "search", query: "x" },
      },
      { type: "reasoning", id: "rs_b", summary: [{ type: "summary_text", text: "Hm." }] },
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Done.", annotations: [] }],
      },
      { type: "message", role: "user", content: [{ type: "input_text", text: "Thanks." }] },
    ] as never),
};

/** Every item type of the Responses API, as the SDK types them. */
export const RESPONSES_ITEM_TYPES: Record<NonNullable<ResponseInputItem["type"]>, true> = {
  message: true,
  file_search_call: true,
  computer_call: true,
  computer_call_output: true,
  web_search_call: true,
  function_call: true,
  function_call_output: true,
  tool_search_call: true,
  tool_search_output: true,
  additional_tools: true,
  reasoning: true,
  compaction: true,
  image_generation_call: true,
  code_interpreter_call: true,
  local_shell_call: true,
  local_shell_call_output: true,
  shell_call: true,
  shell_call_output: true,
  apply_patch_call: true,
  apply_patch_call_output: true,
  mcp_list_tools: true,
  mcp_approval_request: true,
  mcp_approval_response: true,
  mcp_call: true,
  custom_tool_call_output: true,
  custom_tool_call: true,
  compaction_trigger: true,
  item_reference: true,
  program: true,
  program_output: true,
};

/** Every block type of the Messages API (the SDK's, beta included). */
export const ANTHROPIC_BLOCK_TYPES: Record<
  BetaContentBlockParam["type"] | BetaContentBlock["type"],
  true
> = {
  text: true,
  image: true,
  document: true,
  search_result: true,
  thinking: true,
  redacted_thinking: true,
  tool_use: true,
  tool_result: true,
  server_tool_use: true,
  web_search_tool_result: true,
  web_fetch_tool_result: true,
  advisor_tool_result: true,
  code_execution_tool_result: true,
  bash_code_execution_tool_result: true,
  text_editor_code_execution_tool_result: true,
  tool_search_tool_result: true,
  mcp_tool_use: true,
  mcp_tool_result: true,
  container_upload: true,
  compaction: true,
  tool_addition: true,
  tool_removal: true,
  mcp_tool_listing: true,
  fallback: true,
};

/** `system` (another adapter's system messages) between a chat's first exchange and its next request. */
export const aroundSystem = (system: Message[]): Message[] => [
  ...fromChatMessages([
    { role: "user", content: "Plan the release." },
    { role: "assistant", content: "Step one: freeze." },
  ]),
  ...system,
  ...fromChatMessages([{ role: "user", content: "And then?" }]),
];
