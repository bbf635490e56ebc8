import { toAnthropicMessages } from "../src/anthropic/index.js";
import type { LlmClient, LlmRequest, Message } from "../src/index.js";
import { resultText } from "./next-use.js";
import type { PrefixBill } from "./prefix-bill.js";
import { type WireMessage, wireBlocks } from "./request-checks.js";
import { SUMMARY_FILES_LINE } from "./request-texts.js";

/**
 * The real-runs part's stand-in summarizer (the judge's, `../shared/realdata/replay.mjs`):
 * deterministic and extractive. It keeps the lines that read as the user's or as a rule (must,
 * never, always, don't), and lists the paths it was handed; it invents nothing and knows
 * nothing a model would infer, so a summarizing strategy's retention here is a floor, not what
 * a model keeps.
 */

const MAX_SUMMARY_CHARS = 6000;
const MAX_LINE_CHARS = 300;
const MAX_FILES = 60;
const USER_LINE = /^(user|\[user|User|<user)/i;
const RULE_LINE = /must|never|always|don't|do not/i;
const FILE_PATH = /(?:\/[\w.-]+){2,}/g;

/** The summary of `text`: its user and rule lines, then its paths, within `maxTokens` x 4 characters (6,000 at most). */
export function extractiveSummary(text: string, maxTokens = 2048): string {
  const budget = Math.min(4 * maxTokens, MAX_SUMMARY_CHARS);
  const paths = new Set(text.match(FILE_PATH) ?? []);
  const kept = text
    .split("\n")
    .filter((line) => line.trim() && (USER_LINE.test(line.trim()) || RULE_LINE.test(line)))
    .map((line) => line.slice(0, MAX_LINE_CHARS));
  const files = [...paths].slice(0, MAX_FILES).join(", ");
  return `Summary of earlier work.\n${kept.join("\n")}\n${SUMMARY_FILES_LINE}${files}`.slice(
    0,
    budget,
  );
}

/** The conversation as a transcript: `[User] …`, `[Assistant] …`, tool calls and outputs. */
export function conversationText(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const message of toAnthropicMessages(messages) as WireMessage[]) {
    const speaker = message.role === "user" ? "User" : "Assistant";
    for (const block of wireBlocks(message)) {
      if (block["type"] === "text") lines.push(`[${speaker}] ${String(block["text"])}`);
      else if (block["type"] === "tool_use")
        lines.push(
          `[Assistant called tool ${String(block["name"])}]\n<tool_input>${JSON.stringify(block["input"])}</tool_input>`,
        );
      else if (block["type"] === "tool_result")
        lines.push(`<tool_output>\n${resultText(block["content"])}\n</tool_output>`);
    }
  }
  return lines.join("\n");
}

/** The request a summary sends, and the text the stand-in summarizes. */
function summaryRequest(
  request: LlmRequest,
  acceptsConversation: boolean,
  agentSystem: string,
): { system: string; messages: WireMessage[]; text: string } {
  const { prompt, system, conversation } = request;
  if (acceptsConversation && conversation !== undefined) {
    // As AnthropicLlmClient({ request }) sends it: the agent's system and conversation, then
    // the instruction (the summarizer's system prompt before the prompt) as the last user text.
    const instruction = system ? `${system}\n\n${prompt}` : prompt;
    const messages: WireMessage[] = [
      ...(toAnthropicMessages(conversation) as WireMessage[]),
      { role: "user", content: [{ type: "text", text: instruction }] },
    ];
    return { system: agentSystem, messages, text: `${conversationText(conversation)}\n${prompt}` };
  }
  return { system: system ?? "", messages: [{ role: "user", content: prompt }], text: prompt };
}

/**
 * The stand-in as an `LlmClient` whose every request is billed on `bill`: with
 * `acceptsConversation`, the request `AnthropicLlmClient({ request })` sends, read from the
 * agent's cache; otherwise a transcript request of its own.
 */
export function extractiveClient(
  bill: PrefixBill,
  options: { acceptsConversation?: boolean } = {},
): LlmClient {
  const acceptsConversation = options.acceptsConversation === true;
  return {
    ...(acceptsConversation ? { acceptsConversation: true } : {}),
    async complete(request: LlmRequest): Promise<string> {
      const sent = summaryRequest(request, acceptsConversation, bill.system);
      const summary = extractiveSummary(sent.text, request.maxTokens);
      bill.summaryRequest(sent.system, sent.messages, summary.length);
      return summary;
    },
  };
}
