import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV3, SharedV3ProviderOptions } from "@ai-sdk/provider";
import { tool } from "ai";
import * as z from "zod";
import { type MessagesApiServer, roughTokens } from "./messages-api-server.js";
import type { ResponsesApiServer } from "./openai-responses-server.js";

/**
 * What the AI SDK suites share: the real provider packages (`@ai-sdk/anthropic`,
 * `@ai-sdk/openai`) pointed at the loopback Messages and Responses APIs, a `read` tool, and the
 * scripted models that call it.
 */

// The AI SDK logs its warnings to the console, which the test setup refuses.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/** A model with a known window and price (see the `models` table). */
export const CLAUDE = "claude-sonnet-5-5";
export const GPT = "gpt-6.1-sol";

/** `@ai-sdk/anthropic`'s model, talking to the loopback Messages API. */
export function anthropicModel(server: MessagesApiServer, id = CLAUDE): LanguageModelV3 {
  return createAnthropic({ baseURL: `${server.url}/v1`, apiKey: "test-key" })(id);
}

/** `@ai-sdk/openai`'s Responses model, talking to the loopback Responses API. */
export function openaiModel(server: ResponsesApiServer, id = GPT): LanguageModelV3 {
  return createOpenAI({ baseURL: server.url, apiKey: "test-key" }).responses(id);
}

/** Provider options that make the Anthropic requests think (the stand-in then signs and checks). */
export const THINKING: SharedV3ProviderOptions = { anthropic: { thinking: { type: "adaptive" } } };

/** Provider options for stateless Responses requests (reasoning comes back in full). */
export const STATELESS_RESPONSES: SharedV3ProviderOptions = {
  openai: { store: false, include: ["reasoning.encrypted_content"] },
};

/** What `read` returns for a path: about 1,000 tokens of source. */
export function fileText(path: string): string {
  return `// ${path}\n${"export const value = 42;\n".repeat(160)}`;
}

/** The tool the scripted models call. */
export const read = tool({
  description: "Reads a file",
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => fileText(path),
});

interface WireMessage {
  role: string;
  content: unknown;
}

/**
 * The Messages API model of the loop suites: a `read` call per request (with the `caller`
 * metadata current models send, which `@ai-sdk/anthropic` turns into `toolId: undefined`)
 * until `calls` calls were made, then an answer; usage is the request's rough size.
 */
export function readLoop(calls: number) {
  let made = 0;
  return (request: { body: unknown }) => {
    const body = request.body as { messages: WireMessage[] };
    const usage = { input_tokens: roughTokens(body), output_tokens: 40 };
    if (made >= calls) return { type: "message" as const, text: "All files read.", usage };
    made += 1;
    const use = {
      type: "tool_use",
      id: `toolu_${made}`,
      name: "read",
      input: { path: `src/f${made}.ts` },
      caller: { type: "direct" },
    };
    return {
      type: "message" as const,
      content: [{ type: "text", text: `Reading file ${made}.` }, use],
      stopReason: "tool_use",
      usage,
    };
  };
}

/** The requests a Messages API stand-in refused, with why. */
export async function refusals(server: MessagesApiServer): Promise<string[]> {
  const refused: string[] = [];
  for (const request of server.requestsTo("messages")) {
    const outcome = await request.outcome;
    if (outcome !== "answered") refused.push(`${request.path}: ${outcome}`);
  }
  return refused;
}
