import type { ModelMessage } from "ai";
import type { Message } from "../core/message.js";
import { CallNames } from "./call-names.js";
import { isLibraryUserMessage, joinedUserMessages } from "./joined-user-messages.js";
import {
  blockToPart,
  isToolSide,
  messageOptions,
  messageToModel,
  type ToolNames,
} from "./message-out.js";
import { toolResultToPart } from "./parts-out.js";

/**
 * The caller's message two of ours were read from (a summary or notice and the request a writer
 * joined after it, read apart): the source of the first, the second's being `undefined`. It is
 * handed back only with both unchanged, in order; either alone is written anew (and joined
 * again with what is beside it).
 */
export class ReadApart {
  readonly message: ModelMessage;
  constructor(message: ModelMessage) {
    this.message = message;
  }
}

/** What one of ours came from: an SDK message, one read apart, or nothing (`undefined`: made here). */
export type MessageSource = ModelMessage | ReadApart | undefined;

/** AI SDK messages, and for each of ours the message it came from (`undefined`: made here). */
export interface ModelMessagesBack {
  messages: ModelMessage[];
  sources: MessageSource[];
}

/**
 * Our messages as AI SDK messages, giving back the very `ModelMessage` a message came from
 * while it is unchanged: `ours[index]` came from `sources[index]` (when defined). Compaction
 * keeps unchanged messages in order, so one forward pointer finds each; a lookup table only
 * when it loses track. `sending`, when given, is `conversation` as it goes (a reused call id
 * renamed: `withDistinctCallIds`, each message in its place): a message it renamed is written
 * from its source with the renamed parts converted, while `sources` still says which SDK
 * message each of `conversation` stands for.
 */
export function backToModel(
  conversation: readonly Message[],
  ours: readonly Message[],
  sources: readonly MessageSource[],
  sending: readonly Message[] = conversation,
): ModelMessagesBack {
  const messages: ModelMessage[] = [];
  const kept: MessageSource[] = new Array(conversation.length);
  const names = new CallNames(sending);
  // Where the library's own user messages were written anew: joined with a user message beside them.
  const written: number[] = [];
  const write = (message: Message, changed?: Message, source?: ModelMessage) => {
    const before = messages.length;
    if (changed === undefined) messageToModel(message, names, messages);
    else writeChanged(message, changed, source, names, messages);
    if (messages.length > before && isLibraryUserMessage(message)) written.push(before);
  };
  let pointer = 0;
  let byMessage: Map<Message, number> | undefined;
  for (let position = 0; position < conversation.length; position += 1) {
    const message = conversation[position]!;
    const sent = sending[position]!;
    const here = ours[pointer];
    names.position = position;
    if (conversation[position - 1]?.role === "assistant") names.lastAssistant = position - 1;
    if (here !== message && here?.id === message.id) {
      // Changed in place (a masked result, a cleared input).
      const source = sources[pointer];
      pointer += 1;
      write(sent, here, source instanceof ReadApart ? undefined : source);
      continue;
    }
    let index = here === message ? pointer : -1;
    if (index === -1) {
      byMessage ??= new Map(ours.map((known, at) => [known, at]));
      index = byMessage.get(message) ?? -1;
    }
    const source = index === -1 ? undefined : sources[index];
    if (index !== -1) pointer = index + 1;
    if (source instanceof ReadApart) {
      // Its source only with the request read from it after it, both unchanged.
      const request = ours[index + 1];
      const whole =
        request !== undefined &&
        conversation[position + 1] === request &&
        sending[position + 1] === request &&
        sent === message;
      if (whole) {
        messages.push(source.message);
        kept[position] = source;
        position += 1;
        pointer += 1;
      } else write(sent);
      continue;
    }
    if (source === undefined) {
      write(sent);
      continue;
    }
    kept[position] = source;
    // Unchanged, but for its renamed call ids: its source, those parts written anew.
    if (sent === message) messages.push(source);
    else write(sent, message, source);
  }
  return { messages: joinedUserMessages(messages, written), sources: kept };
}

/**
 * Writes `message`, a changed `original` that came from `source`: patched from its source when
 * some of its parts are unchanged, or when it had options of its own (a compactor's new block
 * may not carry them); a message of one block is converted anew, without reading its source
 * again.
 */
function writeChanged(
  message: Message,
  original: Message,
  source: ModelMessage | undefined,
  names: ToolNames,
  out: ModelMessage[],
): void {
  const patch =
    source === undefined || (original.content.length < 2 && messageOptions(original) === undefined)
      ? undefined
      : patched(message, original, source, names);
  if (patch === undefined) messageToModel(message, names, out);
  else out.push(patch);
}

/**
 * A changed message as its source with only the changed parts converted again: when the
 * source was written as parts, one per block, and the blocks stayed in place (masking and
 * input clearing replace blocks, they do not move them). `undefined` otherwise. A changed
 * result keeps the tool name its source part gave.
 */
function patched(
  message: Message,
  original: Message,
  source: ModelMessage,
  names: ToolNames,
): ModelMessage | undefined {
  const blocks = message.content;
  const before = original.content;
  if (source.role === "system" || typeof source.content === "string") return undefined;
  if (blocks.length !== before.length || source.content.length !== blocks.length) return undefined;
  const parts: unknown[] = source.content.slice();
  for (let index = 0; index < blocks.length; index += 1) {
    const block = blocks[index]!;
    if (block === before[index]) continue;
    if ((source.role === "tool") !== isToolSide(block)) return undefined;
    const part = parts[index] as { type?: unknown; toolCallId?: unknown; toolName?: unknown };
    parts[index] =
      block.type === "tool_result" &&
      part.type === "tool-result" &&
      part.toolCallId === block.toolUseId &&
      typeof part.toolName === "string"
        ? toolResultToPart(block, names, part.toolName)
        : blockToPart(block, names);
  }
  return { ...source, content: parts } as ModelMessage;
}
