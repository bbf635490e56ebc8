import type { ChatScript, ScriptedChatReply } from "./chat-completions-server.js";

/**
 * A scripted stand-in for a reasoning model behind Chat Completions, for the offline example:
 * it reads the files the user's latest request names with `read_file`, one call per step, each
 * with its `reasoning_content` (as DeepSeek's thinking mode returns it), then answers in one
 * sentence, repeating a rule the user gave if the conversation still holds it. Asked for a
 * summary (a request without tools, or with `tool_choice: "none"`), it keeps the user's
 * requests and the files read.
 */

interface Message {
  role: string;
  content?: unknown;
  tool_calls?: { function: { arguments: string } }[];
}

const RULE = /never modify files under vendor\//i;
const SUMMARY = "[Previous conversation summary]: ";

function textOf(message: Message | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
}

/** The paths the assistant asked to read, in the messages given. */
function pathsRead(messages: readonly Message[]): string[] {
  return messages.flatMap((message) =>
    (message.tool_calls ?? []).map((call) => {
      try {
        return String(JSON.parse(call.function.arguments).path);
      } catch {
        return "";
      }
    }),
  );
}

function summary(messages: readonly Message[]): ScriptedChatReply {
  const requests = messages
    .filter((message) => message.role === "user" && !textOf(message).includes("Summarize"))
    .map(textOf)
    .join(" | ");
  const read = [...new Set(pathsRead(messages))].join(", ");
  return {
    content: `Goal: the user's requests: ${requests.slice(0, 600)}. Files read: ${read || "none"}.`,
  };
}

/** The offline model's script. */
export function offlineChatModel(): ChatScript {
  return (request) => {
    const { body } = request;
    const messages = (body["messages"] ?? []) as Message[];
    if (body["tools"] === undefined || body["tool_choice"] === "none") return summary(messages);
    const last = messages.findLastIndex(
      (message) => message.role === "user" && !textOf(message).startsWith(SUMMARY),
    );
    const task = textOf(messages[last]);
    const wanted = task.match(/src\/[a-z]+\.ts/g) ?? [];
    const done = new Set(pathsRead(messages.slice(last)));
    const next = wanted.find((path) => !done.has(path));
    if (next !== undefined) {
      return {
        toolCalls: [{ name: "read_file", arguments: JSON.stringify({ path: next }) }],
        reasoning: `The user asked for ${wanted.join(" and ")}; ${next} is next.`,
      };
    }
    const rule = messages.some((message) => RULE.test(textOf(message)));
    const found = wanted.length === 0 ? "Everything reads cleanly" : `Read ${wanted.join(" and ")}`;
    return {
      content: `${found}${rule ? "; your rule: never modify files under vendor/." : "."}`,
      reasoning: "Answer in one sentence.",
    };
  };
}
