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
import { isCompactionBlock, isSystemMessageBlock } from "../core/conversation-structure.js";
import {
  COMPACTION_BLOCK_TYPE,
  type ContentBlock,
  type JsonObject,
  type Message,
  type OpaqueBlock,
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
  const { content } = message;
  return keptMessageOptions(content[content.length - 1]);
}

/** The message options kept on `last`, a message's last block. */
function keptMessageOptions(last: ContentBlock | undefined): ProviderOptions | undefined {
  if (last === undefined) return undefined;
  const options =
    last.type === "opaque"
      ? last.block[MESSAGE_OPTIONS_KEY]
      : aiSdkFields(last)["messageProviderOptions"];
  return isPlainObject(options) ? (options as ProviderOptions) : undefined;
}

/** How the content was written: a string, an empty array (of a `tool` message), or parts. */
type ContentForm = "string" | "empty" | "emptyTool" | "parts";

/** The form of a message whose only block is `only`. */
function contentForm(only: ContentBlock | undefined): ContentForm {
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

/**
 * An assistant message of `content` (its form and options read by {@link messageToModel});
 * none when it held only other APIs' blocks (see `sendsToAiSdk`).
 */
function assistantToModel(
  content: readonly ContentBlock[],
  form: ContentForm,
  options: ProviderOptions | undefined,
  toolNames: ToolNames,
  out: ModelMessage[],
): void {
  const only = content[0];
  if (form !== "parts" && only?.type === "text") {
    const written = form === "string" ? only.text : [];
    out.push(
      withMessageOptions<AssistantModelMessage>(
        { ...MESSAGE.assistant, content: written },
        options,
      ),
    );
    return;
  }
  const blocks = sentBlocks(content);
  if (blocks.length === 0) return;
  const parts = partsOf<AssistantPart>(blocks, 0, blocks.length, toolNames, true);
  out.push(
    withMessageOptions<AssistantModelMessage>({ ...MESSAGE.assistant, content: parts }, options),
  );
}

/**
 * A user message of `content`: its leading tool results (and tool approvals) as a `tool`
 * message, the rest as a `user` message, each only when it has parts (other APIs' blocks left
 * out first).
 */
function userToModel(
  content: readonly ContentBlock[],
  form: ContentForm,
  options: ProviderOptions | undefined,
  toolNames: ToolNames,
  out: ModelMessage[],
): void {
  const only = content[0];
  if (form === "emptyTool") {
    out.push(withMessageOptions<ToolModelMessage>({ role: "tool", content: [] }, options));
    return;
  }
  if (form !== "parts" && only?.type === "text") {
    const written = form === "string" ? only.text : [];
    out.push(withMessageOptions<UserModelMessage>({ ...MESSAGE.user, content: written }, options));
    return;
  }
  const blocks = sentBlocks(content);
  let split = 0;
  while (split < blocks.length && isToolSide(blocks[split]!)) split += 1;
  const rest = blocks.length - split;
  if (split > 0) {
    const parts = partsOf<ToolPart>(blocks, 0, split, toolNames);
    out.push(
      withMessageOptions<ToolModelMessage>(
        { ...MESSAGE.tool, content: parts },
        rest === 0 ? options : undefined,
      ),
    );
  }
  if (rest > 0) {
    const parts = partsOf<UserPart>(blocks, split, blocks.length, toolNames);
    out.push(withMessageOptions<UserModelMessage>({ ...MESSAGE.user, content: parts }, options));
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
  // Its content read once here: a session's is frozen, which V8 reads several times slower.
  const { content } = message;
  const only = content.length === 1 ? content[0] : undefined;
  if (isSystemMessageBlock(only)) {
    const system = systemToModel(only.block.message);
    if (system !== undefined) out.push(system);
    return;
  }
  const options = keptMessageOptions(content[content.length - 1]);
  const form = contentForm(only);
  if (message.role === "assistant") assistantToModel(content, form, options, toolNames, out);
  else userToModel(content, form, options, toolNames, out);
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
