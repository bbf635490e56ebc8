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

/** The line that opens a result told as text because no call before it has its id. */
export function strayResultHead(toolUseId: string, isError: boolean): string {
  return `[The result of a tool call not in this conversation: ${toolUseId}${isError ? ", an error" : ""}]`;
}

/** The line that opens a second result of the call `toolUseId` told as text (its call is answered). */
export function repeatResultHead(toolUseId: string, isError: boolean): string {
  return `[Another result of a tool call answered already: ${toolUseId}${isError ? ", an error" : ""}]`;
}

/** `result` told as text: the notice naming its call, then what it held. */
function toldAsText(result: ToolResultBlock, opening: typeof lateResultHead): ContentBlock[] {
  const head = opening(result.toolUseId, result.isError);
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
  opening = lateResultHead,
): Message {
  if (told === undefined) return message;
  const content: ContentBlock[] = [];
  const texts: ContentBlock[] = [];
  for (const block of message.content) {
    if (block.type === "tool_result" && told.has(block)) texts.push(...toldAsText(block, opening));
    else content.push(block);
  }
  return { ...message, content: [...content, ...texts] };
}

/**
 * `messages` with each tool result whose id no call before it has told as text where it came
 * (review 52c's finding 10: its call is not in the history, and every API refuses it: the
 * Messages API's "unexpected `tool_use_id`", the Responses API's "No tool call found").
 * `before`: the messages before these. The same array when there is none.
 */
export function withStrayResultsTold(
  messages: readonly Message[],
  before: readonly Message[] = [],
): readonly Message[] {
  const called = new Set<string>();
  // Calls answered already since they were made: a second result of one (given again, in the
  // same message or after the model went on) answers nothing either (the Chat Completions and
  // Responses APIs refuse a second result of one call). A call that takes an id again (some
  // servers number calls per response) is answered anew.
  const answered = new Set<string>();
  /** Notes the calls of `message`; its results no call before has (none: `undefined`). */
  const strays = (message: Message): Set<ToolResultBlock> | undefined => {
    let found: Set<ToolResultBlock> | undefined;
    for (const block of message.content) {
      if (block.type === "tool_use") {
        called.add(block.id);
        answered.delete(block.id);
      } else if (block.type === "tool_result") {
        const { toolUseId } = block;
        if (called.has(toolUseId) && !answered.has(toolUseId)) {
          answered.add(toolUseId);
          continue;
        }
        found ??= new Set();
        found.add(block);
      }
    }
    return found;
  };
  for (const message of before) strays(message);
  let out: Message[] | undefined;
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    const found = strays(message);
    if (found === undefined) {
      out?.push(message);
      continue;
    }
    out ??= messages.slice(0, index);
    // Told as text, a result stays in its message: the message keeps content.
    out.push(
      withResultsTold(message, found, (id, isError) =>
        called.has(id) ? repeatResultHead(id, isError) : strayResultHead(id, isError),
      ),
    );
  }
  return out ?? messages;
}
