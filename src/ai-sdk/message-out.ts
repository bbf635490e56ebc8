import type {
  AssistantContent,
  AssistantModelMessage,
  ModelMessage,
  SystemModelMessage,
  ToolContent,
  ToolModelMessage,
  UserContent,
  UserModelMessage,
} from "ai";
import { isCompactionBlock, isSystemMessage } from "../core/conversation-structure.js";
import {
  COMPACTION_BLOCK_TYPE,
  type ContentBlock,
  type JsonObject,
  type Message,
  type OpaqueBlock,
  type SystemMessageBlock,
} from "../core/message.js";
import { isPlainObject, spreadWith } from "../internal/plain-object.js";
import { systemText } from "../internal/system-text.js";
import { sentBlocks } from "./foreign-parts.js";
import { AI_SDK_KEY } from "./parts-in.js";
import {
  aiSdkFields,
  imageToPart,
  opaqueToPart,
  textToPart,
  thinkingToPart,
  toolResultToPart,
  toolUseToPart,
} from "./parts-out.js";

type ProviderOptions = NonNullable<ModelMessage["providerOptions"]>;
type AssistantPart = Exclude<AssistantContent, string>[number];
type UserPart = Exclude<UserContent, string>[number];
type ToolPart = ToolContent[number];

/**
 * Where a tool result's `toolName` is found from its call's id: a `Map` the conversion fills
 * as it meets calls (`set`), or a lookup that finds them itself.
 */
export interface ToolNames {
  get(toolUseId: string): string | undefined;
  set(toolUseId: string, name: string): unknown;
}

/** The messages written, each a spread of its shape, every field set (see `core/message-shapes.ts`). */
const MESSAGE = {
  user: { role: "user", content: undefined },
  assistant: { role: "assistant", content: undefined },
  tool: { role: "tool", content: undefined },
} as const;

const MESSAGE_OPTIONS_KEY = `${AI_SDK_KEY}:messageProviderOptions`;
const PROVIDER_OPTIONS_KEY = `${AI_SDK_KEY}:providerOptions`;

/** A compaction block as the text part the AI SDK's Anthropic provider sends as one. */
function compactionToPart(block: OpaqueBlock): AssistantPart {
  const { content, signature, cache_control: cacheControl } = block.block;
  const kept = block.block[PROVIDER_OPTIONS_KEY];
  let providerOptions: ProviderOptions;
  if (isPlainObject(kept)) providerOptions = kept as ProviderOptions;
  else {
    const anthropic: JsonObject = { type: COMPACTION_BLOCK_TYPE };
    if (typeof signature === "string") anthropic["signature"] = signature;
    if (cacheControl !== undefined) anthropic["cacheControl"] = cacheControl;
    providerOptions = { anthropic };
  }
  return { type: "text", text: typeof content === "string" ? content : "", providerOptions };
}

function opaqueToModelPart<P>(block: OpaqueBlock): P {
  if (isCompactionBlock(block)) return compactionToPart(block) as P;
  if (!(MESSAGE_OPTIONS_KEY in block.block)) return opaqueToPart<P>(block);
  const { [MESSAGE_OPTIONS_KEY]: _options, ...rest } = block.block;
  return opaqueToPart<P>({ type: "opaque", block: rest });
}

/**
 * One block as the AI SDK part it stands for; in an assistant message (`assistant`), an image
 * as a file part (see `imageToPart`).
 */
export function blockToPart(
  block: ContentBlock,
  toolNames: ToolNames,
  assistant = false,
): AssistantPart {
  switch (block.type) {
    case "text":
      return textToPart(block);
    case "image":
      return imageToPart(block, assistant) as AssistantPart;
    case "thinking":
    case "redacted_thinking":
      return thinkingToPart(block);
    case "tool_use":
      toolNames.set(block.id, block.name);
      return toolUseToPart(block);
    case "tool_result":
      return toolResultToPart(block, toolNames);
    case "opaque":
      return opaqueToModelPart<AssistantPart>(block);
  }
}

/** The message's own `providerOptions`, kept on its last block. */
export function messageOptions(message: Message): ProviderOptions | undefined {
  const last = message.content.at(-1);
  if (last === undefined) return undefined;
  const options =
    last.type === "opaque"
      ? last.block[MESSAGE_OPTIONS_KEY]
      : aiSdkFields(last)["messageProviderOptions"];
  return isPlainObject(options) ? (options as ProviderOptions) : undefined;
}

/** How the content was written: a string, an empty array (of a `tool` message), or parts. */
function contentForm(message: Message): "string" | "empty" | "emptyTool" | "parts" {
  const only = message.content.length === 1 ? message.content[0] : undefined;
  if (only?.type !== "text") return "parts";
  const form = aiSdkFields(only)["content"];
  return form === "string" || form === "empty" || form === "emptyTool" ? form : "parts";
}

/** Whether a block goes in a `tool` message (a tool result, a tool approval). */
export function isToolSide(block: ContentBlock): boolean {
  return (
    block.type === "tool_result" ||
    (block.type === "opaque" && block.block["type"] === "tool-approval-response")
  );
}

function withMessageOptions<M extends ModelMessage>(
  message: M,
  options: ProviderOptions | undefined,
): M {
  return options === undefined ? message : spreadWith(message, { providerOptions: options });
}

/** An assistant message; none when it held only other APIs' blocks (see `sendsToAiSdk`). */
function assistantToModel(message: Message, toolNames: ToolNames, out: ModelMessage[]): void {
  const options = messageOptions(message);
  const form = contentForm(message);
  const only = message.content[0];
  if (form !== "parts" && only?.type === "text") {
    const content = form === "string" ? only.text : [];
    out.push(withMessageOptions<AssistantModelMessage>({ ...MESSAGE.assistant, content }, options));
    return;
  }
  const blocks = sentBlocks(message.content);
  if (blocks.length === 0) return;
  const content = partsOf<AssistantPart>(blocks, 0, blocks.length, toolNames, true);
  out.push(withMessageOptions<AssistantModelMessage>({ ...MESSAGE.assistant, content }, options));
}

/**
 * A user message: its leading tool results (and tool approvals) as a `tool` message, the rest
 * as a `user` message, each only when it has parts (other APIs' blocks left out first).
 */
function userToModel(message: Message, toolNames: ToolNames, out: ModelMessage[]): void {
  const options = messageOptions(message);
  const form = contentForm(message);
  const only = message.content[0];
  if (form === "emptyTool") {
    out.push(withMessageOptions<ToolModelMessage>({ role: "tool", content: [] }, options));
    return;
  }
  if (form !== "parts" && only?.type === "text") {
    const content = form === "string" ? only.text : [];
    out.push(withMessageOptions<UserModelMessage>({ ...MESSAGE.user, content }, options));
    return;
  }
  const blocks = sentBlocks(message.content);
  let split = 0;
  while (split < blocks.length && isToolSide(blocks[split]!)) split += 1;
  const rest = blocks.length - split;
  if (split > 0) {
    const content = partsOf<ToolPart>(blocks, 0, split, toolNames);
    out.push(
      withMessageOptions<ToolModelMessage>(
        { ...MESSAGE.tool, content },
        rest === 0 ? options : undefined,
      ),
    );
  }
  if (rest > 0) {
    const content = partsOf<UserPart>(blocks, split, blocks.length, toolNames);
    out.push(withMessageOptions<UserModelMessage>({ ...MESSAGE.user, content }, options));
  }
}

/** The parts of `blocks[from, to)`, in an array of that length. */
function partsOf<P>(
  blocks: readonly ContentBlock[],
  from: number,
  to: number,
  toolNames: ToolNames,
  assistant = false,
): P[] {
  const parts: P[] = new Array(to - from);
  for (let index = from; index < to; index += 1)
    parts[index - from] = blockToPart(blocks[index]!, toolNames, assistant) as P;
  return parts;
}

/**
 * Appends the AI SDK messages one of ours stands for to `out`: none for one that held only
 * other APIs' blocks, which are left out (see `sendsToAiSdk`).
 */
export function messageToModel(message: Message, toolNames: ToolNames, out: ModelMessage[]): void {
  if (isSystemMessage(message)) {
    const system = systemToModel((message.content[0] as SystemMessageBlock).block.message);
    if (system !== undefined) out.push(system);
    return;
  }
  if (message.role === "assistant") assistantToModel(message, toolNames, out);
  else userToModel(message, toolNames, out);
}

/**
 * A mid-conversation system message as the AI SDK takes it: one in its shape (`role: "system"`,
 * a string `content`, no `type`: its own, Anthropic's and most Chat Completions ones) as it was
 * read; another (a Chat `developer` message, a Responses `developer` item, a system message of
 * text parts) as `{ role: "system", content }` of its text, or not at all when it has none. It
 * went verbatim, and the SDK refused the prompt ("messages do not match the ModelMessage[] schema").
 */
function systemToModel(message: JsonObject): SystemModelMessage | undefined {
  const { role, content } = message;
  if (role === "system" && typeof content === "string" && !Object.hasOwn(message, "type"))
    return message as unknown as SystemModelMessage;
  const text = systemText(content);
  return text === "" ? undefined : { role: "system", content: text };
}
