import { requestProblems } from "../../src/testing/anthropic-rules/request.js";
import { offlineRecollection, offlineSummary, PATH_PATTERN } from "./code-reading.js";
import { type Reply, type ReplyScript, roughTokens } from "./messages-api-server.js";

/**
 * A deterministic stand-in for Claude behind the loopback Messages API server, so the
 * Anthropic example runs offline. It checks every request the way the API does (400 for an
 * orphaned tool result, a first message from the assistant, …), answers a summary request
 * (one without `tools`) with a short summary, and otherwise plays a code-reading agent:
 * it calls `read_file` on each path the current request names, one at a time, then answers.
 * Its usage reports most of the prompt as read from the cache, as a warm prompt cache would.
 */

type WireBlock = {
  type: string;
  text?: string;
  name?: string;
  input?: { path?: unknown };
};
type WireMessage = { role: "user" | "assistant"; content: string | WireBlock[] };
type Body = { system?: unknown; tools?: unknown; messages?: WireMessage[] };

function blocks(message: WireMessage): WireBlock[] {
  return typeof message.content === "string"
    ? [{ type: "text", text: message.content }]
    : message.content;
}

function textOf(message: WireMessage): string {
  return blocks(message)
    .filter((block) => block.type === "text")
    .map((block) => block.text ?? "")
    .join("\n");
}

/** The index of the user message holding the current request (text, not only tool results). */
function currentRequestIndex(messages: readonly WireMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (message.role !== "user") continue;
    const own = blocks(message).filter((block) => block.type === "text");
    if (own.length > 0 && !blocks(message).some((block) => block.type === "tool_result")) {
      return index;
    }
  }
  return -1;
}

function summaryReply(body: Body): Reply {
  return { type: "message", text: offlineSummary((body.messages ?? []).map(textOf).join("\n")) };
}

function agentReply(body: Body, nextToolId: () => string): Reply {
  const messages = body.messages ?? [];
  const requestIndex = currentRequestIndex(messages);
  if (requestIndex === -1) return { type: "message", text: "What should I read?" };
  const request = blocks(messages[requestIndex]!)
    .filter((block) => block.type === "text")
    .at(-1)?.text;
  const wanted = [...new Set(request?.match(PATH_PATTERN) ?? [])];
  const read = new Set<string>();
  for (const message of messages.slice(requestIndex + 1)) {
    for (const block of blocks(message)) {
      if (block.type === "tool_use" && typeof block.input?.path === "string")
        read.add(block.input.path);
    }
  }
  const next = wanted.find((path) => !read.has(path));
  if (next !== undefined) {
    return {
      type: "message",
      content: [
        { type: "text", text: `Reading ${next}.`, citations: null },
        { type: "tool_use", id: nextToolId(), name: "read_file", input: { path: next } },
      ],
    };
  }
  if (wanted.length > 0) {
    return {
      type: "message",
      text: `I read ${wanted.join(", ")}: ${wanted.length} file(s), all consistent with the earlier ones.`,
    };
  }
  // A question about the session: answer from what the history (summary included) still holds.
  return { type: "message", text: offlineRecollection(messages.map(textOf).join("\n")) };
}

/** Options of {@link offlineClaude}. */
export interface OfflineClaudeOptions {
  /** Share of the prompt the usage reports as read from the cache. @default 0.8 */
  cacheShare?: number;
}

/** The stand-in's reply script for `/v1/messages`. */
export function offlineClaude(options: OfflineClaudeOptions = {}): ReplyScript {
  const cacheShare = options.cacheShare ?? 0.8;
  let toolCount = 0;
  const nextToolId = () => `toolu_offline_${String(++toolCount).padStart(3, "0")}`;
  return (request) => {
    const body = (request.body ?? {}) as Body;
    const problems = requestProblems(body.messages);
    if (problems.length > 0) {
      return {
        type: "error",
        status: 400,
        message: problems[0]!,
        headers: { "x-should-retry": "false" },
      };
    }
    const reply = body.tools === undefined ? summaryReply(body) : agentReply(body, nextToolId);
    if (reply.type !== "message") return reply;
    const prompt = roughTokens({ system: body.system, tools: body.tools, messages: body.messages });
    const cached = Math.floor(prompt * cacheShare);
    return {
      ...reply,
      usage: {
        input_tokens: prompt - cached,
        cache_read_input_tokens: cached,
        cache_creation_input_tokens: 0,
      },
    };
  };
}
