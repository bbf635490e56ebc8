import type { ContentBlock, Message, ToolResultBlock } from "./message.js";

/**
 * What a one-call helper does with a tool result given only after an assistant message (an
 * asynchronous tool that finished after the model went on): `"kept"` where it is (the Responses
 * API takes an output anywhere after its call), or `"told"`: its call is closed as interrupted
 * and the result is told as text in its message (every other API refuses a result there).
 */
export type LateResults = "kept" | "told";

/** The text that opens a late result told as text ({@link withResultsTold}). */
export const LATE_RESULT_NOTICE = "[The result of an interrupted tool call, given later:";

/** The line that opens the late result of the call `toolUseId` told as text. */
export function lateResultHead(toolUseId: string, isError: boolean): string {
  return `${LATE_RESULT_NOTICE} ${toolUseId}${isError ? ", an error" : ""}]`;
}

/** `result` told as text: the notice naming its call, then what it held. */
function toldAsText(result: ToolResultBlock): ContentBlock[] {
  const head = lateResultHead(result.toolUseId, result.isError);
  if (typeof result.content === "string")
    return [{ type: "text", text: `${head}\n${result.content}` }];
  return [{ type: "text", text: head }, ...result.content];
}

/**
 * `message` with the results `told` told as text ({@link LateResults}), after its other blocks
 * (results come first in a message); the message itself when there are none.
 */
export function withResultsTold(
  message: Message,
  told: ReadonlySet<ToolResultBlock> | undefined,
): Message {
  if (told === undefined) return message;
  const content: ContentBlock[] = [];
  const texts: ContentBlock[] = [];
  for (const block of message.content) {
    if (block.type === "tool_result" && told.has(block)) texts.push(...toldAsText(block));
    else content.push(block);
  }
  return { ...message, content: [...content, ...texts] };
}
