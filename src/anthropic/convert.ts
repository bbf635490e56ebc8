import type {
  ContentBlock as AnthropicContentBlock,
  ContentBlockParam,
  MessageParam,
} from "@anthropic-ai/sdk/resources/messages";
import { z } from "zod";
import { EARLIER_USER_MESSAGE_PREFIX, SUMMARY_PREFIX } from "../compactors/prompt.js";
import { parseOrThrow, ValidationError, type ValidationIssue } from "../core/errors.js";
import type {
  ContentBlock,
  ImageBlock,
  ImageSource,
  JsonObject,
  JsonValue,
  Message,
  OpaqueBlock,
  TextBlock,
  ToolResultBlock,
  ToolResultContentBlock,
  TurnId,
} from "../core/message.js";
import { type Clock, createMessage, newId, systemClock } from "../core/message-factory.js";
import { MessageSchema } from "../core/schemas.js";
import { SUMMARY_TURN_ID } from "../core/turn.js";
import { isJsonObject, normalizeJson, setProperty } from "./json.js";

/**
 * The key, in a text block's `extra`, that remembers the block came from a message whose
 * content was a plain string (`content: "hi"`). `toAnthropicMessages` turns such a message
 * back into a string and never sends the key.
 */
export const STRING_CONTENT_KEY = "agentCompaction:stringContent";

/** Options of {@link fromAnthropicMessages}. */
export interface FromAnthropicOptions {
  /** The session id stamped on every message. @default a new uuid v7 */
  sessionId?: string;
  /** The number of the first turn (owner `"u"`). @default 1 */
  firstTurnNumber?: number;
  /** Clock for `createdAt`. @default the wall clock */
  clock?: Clock;
  /** Makes each message id. @default a new uuid v7 per message */
  generateId?: () => string;
}

/** A block as the SDK takes it in a request or gives it in a response. */
export type AnthropicBlock = ContentBlockParam | AnthropicContentBlock;

type Path = (string | number)[];

const nonEmptyString = z.string({ error: "must be a string" }).min(1, "must be a non-empty string");
const anyString = z.string({ error: "must be a string" });

const TextWireSchema = z.looseObject({ type: z.literal("text"), text: anyString });
const ImageWireSchema = z.looseObject({
  type: z.literal("image"),
  source: z.looseObject({ type: anyString }, { error: "must be an object with a type" }),
});
const ThinkingWireSchema = z.looseObject({
  type: z.literal("thinking"),
  thinking: anyString,
  signature: anyString,
});
const RedactedThinkingWireSchema = z.looseObject({
  type: z.literal("redacted_thinking"),
  data: anyString,
});
const ToolUseWireSchema = z.looseObject({
  type: z.literal("tool_use"),
  id: nonEmptyString,
  name: nonEmptyString,
  input: z.record(z.string(), z.unknown(), { error: "must be a JSON object" }),
});
const BlockShapeSchema = z.looseObject(
  { type: nonEmptyString },
  { error: "must be a content block (an object with a type)" },
);
const ToolResultWireSchema = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: nonEmptyString,
  content: z
    .union([anyString, z.array(z.unknown())], {
      error: "must be a string or an array of blocks",
    })
    .optional(),
  is_error: z.boolean({ error: "must be a boolean" }).optional(),
});

const KNOWN_BLOCK_SCHEMAS: Record<string, z.ZodType> = {
  text: TextWireSchema,
  image: ImageWireSchema,
  thinking: ThinkingWireSchema,
  redacted_thinking: RedactedThinkingWireSchema,
  tool_use: ToolUseWireSchema,
  tool_result: ToolResultWireSchema,
};

const MessageParamWireSchema = z.strictObject({
  role: z.enum(["user", "assistant"], {
    error: (issue) =>
      issue.input === "system"
        ? 'role "system" is not supported: pass the system prompt as the request\'s `system`'
        : 'must be "user" or "assistant"',
  }),
  content: z.union([anyString, z.array(z.unknown()).min(1, "must hold at least one block")], {
    error: "must be a string or a non-empty array of blocks",
  }),
});

const FromAnthropicOptionsSchema = z.strictObject({
  sessionId: nonEmptyString.exactOptional(),
  firstTurnNumber: z
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .positive("must be 1 or more (turn 0 is the summary's)")
    .exactOptional(),
  clock: z
    .custom<Clock>((value) => typeof value === "function", "must be a function")
    .exactOptional(),
  generateId: z
    .custom<() => string>((value) => typeof value === "function", "must be a function")
    .exactOptional(),
});

function addIssues(issues: ValidationIssue[], path: Path, error: z.ZodError): void {
  for (const issue of error.issues) {
    issues.push({
      path: [
        ...path,
        ...issue.path.map((part) => (typeof part === "symbol" ? String(part) : part)),
      ],
      message: issue.message,
    });
  }
}

/** Checks a normalized wire block (and the parts of a tool result) against what we model. */
function checkBlock(block: JsonValue, path: Path, issues: ValidationIssue[]): boolean {
  const shape = BlockShapeSchema.safeParse(block);
  if (!shape.success) {
    addIssues(issues, path, shape.error);
    return false;
  }
  const schema = KNOWN_BLOCK_SCHEMAS[shape.data.type];
  if (schema === undefined) return true;
  const parsed = schema.safeParse(block);
  if (!parsed.success) {
    addIssues(issues, path, parsed.error);
    return false;
  }
  if (shape.data.type === "tool_result" && isJsonObject(block) && Array.isArray(block.content)) {
    let valid = true;
    block.content.forEach((part, index) => {
      valid = checkBlock(part, [...path, "content", index], issues) && valid;
    });
    return valid;
  }
  return true;
}

/** Normalizes and validates wire blocks; throws a ValidationError naming every bad path. */
function normalizeBlocks(content: readonly unknown[], path: Path, subject: string): JsonObject[] {
  const issues: ValidationIssue[] = [];
  const blocks = content.map((block, index) => {
    const normalized = normalizeJson(block, [...path, index], issues);
    if (normalized !== undefined) checkBlock(normalized, [...path, index], issues);
    return normalized as JsonObject;
  });
  if (issues.length > 0) throw new ValidationError(subject, issues);
  return blocks;
}

function withExtra<B extends object>(block: B, extra: JsonObject): B & { extra?: JsonObject } {
  return Object.keys(extra).length === 0 ? block : { ...block, extra };
}

function rest(block: JsonObject, modelled: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(block)) {
    if (!modelled.includes(key)) setProperty(out, key, value);
  }
  return out;
}

function opaque(block: JsonObject): OpaqueBlock {
  return { type: "opaque", block };
}

function hasExactly(object: JsonObject, keys: readonly string[]): boolean {
  const own = Object.keys(object);
  return own.length === keys.length && keys.every((key) => typeof object[key] === "string");
}

/** Our image source for a wire source, or undefined when it carries more than we model. */
function imageSourceFromWire(source: JsonObject): ImageSource | undefined {
  if (source.type === "base64" && hasExactly(source, ["type", "media_type", "data"])) {
    const mediaType = source.media_type as string;
    return mediaType === ""
      ? undefined
      : { type: "base64", mediaType, data: source.data as string };
  }
  if (source.type === "url" && hasExactly(source, ["type", "url"]) && source.url !== "") {
    return { type: "url", url: source.url as string };
  }
  if (source.type === "file" && hasExactly(source, ["type", "file_id"]) && source.file_id !== "") {
    return { type: "file", fileId: source.file_id as string };
  }
  return undefined;
}

function imageSourceToWire(source: ImageSource): JsonObject {
  switch (source.type) {
    case "base64":
      return { type: "base64", media_type: source.mediaType, data: source.data };
    case "url":
      return { type: "url", url: source.url };
    case "file":
      return { type: "file", file_id: source.fileId };
  }
}

function textFromWire(block: JsonObject): TextBlock {
  return withExtra({ type: "text", text: block.text as string }, rest(block, ["type", "text"]));
}

function imageFromWire(block: JsonObject): ImageBlock | OpaqueBlock {
  const source = imageSourceFromWire(block.source as JsonObject);
  if (source === undefined) return opaque(block);
  return withExtra({ type: "image", source }, rest(block, ["type", "source"]));
}

function partFromWire(part: JsonObject): ToolResultContentBlock {
  if (part.type === "text") return textFromWire(part);
  if (part.type === "image") return imageFromWire(part);
  return opaque(part);
}

function toolResultFromWire(block: JsonObject): ToolResultBlock {
  const extra = rest(block, ["type", "tool_use_id", "content", "is_error"]);
  // Wire forms our model cannot tell from its defaults are kept as they were sent:
  // `is_error: false` (vs absent) and `content: ""` (vs absent).
  if (block.is_error === false) extra.is_error = false;
  if (block.content === "") extra.content = "";
  const content = block.content;
  return withExtra(
    {
      type: "tool_result",
      toolUseId: block.tool_use_id as string,
      content:
        content === undefined
          ? ""
          : typeof content === "string"
            ? content
            : (content as JsonObject[]).map(partFromWire),
      isError: block.is_error === true,
    },
    extra,
  );
}

/** Converts one validated, normalized wire block. */
function blockFromWire(block: JsonObject): ContentBlock {
  switch (block.type) {
    case "text":
      return textFromWire(block);
    case "image":
      return imageFromWire(block);
    case "thinking":
      return withExtra(
        {
          type: "thinking",
          thinking: block.thinking as string,
          signature: block.signature as string,
        },
        rest(block, ["type", "thinking", "signature"]),
      );
    case "redacted_thinking":
      return withExtra(
        { type: "redacted_thinking", data: block.data as string },
        rest(block, ["type", "data"]),
      );
    case "tool_use":
      return withExtra(
        {
          type: "tool_use",
          id: block.id as string,
          name: block.name as string,
          input: block.input as JsonObject,
        },
        rest(block, ["type", "id", "name", "input"]),
      );
    case "tool_result":
      return toolResultFromWire(block);
    default:
      return opaque(block);
  }
}

function extraToWire(extra: JsonObject | undefined, drop: readonly string[] = []): JsonObject {
  const out: JsonObject = {};
  if (extra === undefined) return out;
  for (const [key, value] of Object.entries(extra)) {
    if (key !== STRING_CONTENT_KEY && !drop.includes(key)) setProperty(out, key, value);
  }
  return out;
}

function partToWire(part: ToolResultContentBlock): JsonObject {
  switch (part.type) {
    case "text":
      return { type: "text", ...extraToWire(part.extra, ["type", "text"]), text: part.text };
    case "image":
      return {
        type: "image",
        ...extraToWire(part.extra, ["type", "source"]),
        source: imageSourceToWire(part.source),
      };
    case "opaque":
      return part.block;
  }
}

/** Converts one of our blocks to the wire; our own fields (`compactSummary`) stay behind. */
function blockToWire(block: ContentBlock): JsonObject {
  switch (block.type) {
    case "text":
    case "image":
    case "opaque":
      return partToWire(block);
    case "thinking":
      return {
        type: "thinking",
        ...extraToWire(block.extra, ["type", "thinking", "signature"]),
        thinking: block.thinking,
        signature: block.signature,
      };
    case "redacted_thinking":
      return {
        type: "redacted_thinking",
        ...extraToWire(block.extra, ["type", "data"]),
        data: block.data,
      };
    case "tool_use":
      return {
        type: "tool_use",
        ...extraToWire(block.extra, ["type", "id", "name", "input"]),
        id: block.id,
        name: block.name,
        input: block.input,
      };
    case "tool_result": {
      const out: JsonObject = {
        type: "tool_result",
        ...extraToWire(block.extra, ["type", "tool_use_id", "content", "is_error"]),
        tool_use_id: block.toolUseId,
      };
      if (block.content !== "") {
        out.content =
          typeof block.content === "string" ? block.content : block.content.map(partToWire);
      } else if (block.extra?.content === "") {
        out.content = "";
      }
      if (block.isError) out.is_error = true;
      else if (block.extra?.is_error === false) out.is_error = false;
      return out;
    }
  }
}

/**
 * Converts content blocks as the SDK takes or gives them (a request's `ContentBlockParam`s,
 * a response's `ContentBlock`s, or a plain string) to ours, losslessly: fields we do not
 * model go in `extra`, blocks we do not model are carried as `OpaqueBlock`.
 *
 * @throws {ValidationError} naming the path of each malformed block.
 */
export function fromAnthropicContent(
  content: string | readonly AnthropicBlock[] | readonly unknown[],
): ContentBlock[] {
  if (typeof content === "string") {
    return [{ type: "text", text: content, extra: { [STRING_CONTENT_KEY]: true } }];
  }
  const array = parseOrThrow(
    z.array(z.unknown(), { error: "must be a string or an array of blocks" }),
    content,
    "Anthropic content",
  );
  return normalizeBlocks(array, [], "Anthropic content").map(blockFromWire);
}

/** Converts our blocks to the SDK's `ContentBlockParam`s, dropping our own fields. */
export function toAnthropicContent(blocks: readonly ContentBlock[]): ContentBlockParam[] {
  return blocks.map((block) => blockToWire(block) as unknown as ContentBlockParam);
}

function isSummaryText(block: ContentBlock | undefined): boolean {
  return block?.type === "text" && block.text.startsWith(SUMMARY_PREFIX);
}

/**
 * Splits a user message that starts with the compaction summary into the summary's blocks
 * and what follows (the first kept user message, merged into it by `toAnthropicMessages`).
 */
function splitSummary(blocks: ContentBlock[]): [ContentBlock[], ContentBlock[]] {
  let end = 1;
  while (end < blocks.length) {
    const block = blocks[end]!;
    if (block.type !== "text" || !block.text.startsWith(EARLIER_USER_MESSAGE_PREFIX)) break;
    end += 1;
  }
  const after = blocks.slice(end);
  // Tool results must lead a user message; a message where they follow the summary is left whole.
  if (after.some((block) => block.type === "tool_result")) return [blocks, []];
  return [blocks.slice(0, end), after];
}

/**
 * Converts an Anthropic conversation (the `messages` of a request) to ours, losslessly, and
 * assigns turns the way `AgentSession` does: a user message opens a new turn (owner `"u"`,
 * numbered from `firstTurnNumber`) unless it carries tool results, which continue the tool
 * loop of the current turn; assistant messages stay in the current turn. A user message that
 * starts with the compaction summary (`SUMMARY_PREFIX`) becomes the summary message (turn
 * `u0`), and the rest of it, the first kept user message, a message of its own.
 *
 * @example
 * const messages = fromAnthropicMessages(params, { sessionId: "s1" });
 * session.append(...messages);
 * @throws {ValidationError} naming the path of each malformed message or block.
 */
export function fromAnthropicMessages(
  params: readonly MessageParam[] | readonly unknown[],
  options: FromAnthropicOptions = {},
): Message[] {
  const parsedOptions = parseOrThrow(
    FromAnthropicOptionsSchema,
    options,
    "fromAnthropicMessages options",
  );
  const list = parseOrThrow(
    z.array(z.unknown(), { error: "must be an array of messages" }),
    params,
    "Anthropic messages",
  );
  const issues: ValidationIssue[] = [];
  const converted: { role: "user" | "assistant"; content: ContentBlock[] }[] = [];
  list.forEach((param, index) => {
    const path: Path = ["messages", index];
    const normalized = normalizeJson(param, path, issues);
    if (normalized === undefined) return;
    const shape = MessageParamWireSchema.safeParse(normalized);
    if (!shape.success) {
      addIssues(issues, path, shape.error);
      return;
    }
    const { role, content } = shape.data;
    if (typeof content === "string") {
      converted.push({ role, content: fromAnthropicContent(content) });
      return;
    }
    const before = issues.length;
    content.forEach((block, blockIndex) => {
      checkBlock(block as JsonValue, [...path, "content", blockIndex], issues);
    });
    if (issues.length === before) {
      converted.push({ role, content: (content as JsonObject[]).map(blockFromWire) });
    }
  });
  if (issues.length > 0) throw new ValidationError("Anthropic messages", issues);

  const sessionId = parsedOptions.sessionId ?? newId();
  const clock = parsedOptions.clock ?? systemClock;
  const generateId = parsedOptions.generateId ?? newId;
  let turnNumber = (parsedOptions.firstTurnNumber ?? 1) - 1;
  let current: TurnId | undefined;
  const openTurn = (): TurnId => {
    turnNumber += 1;
    current = { owner: "u", number: turnNumber };
    return current;
  };
  const messages: Message[] = [];
  const push = (role: "user" | "assistant", turnId: TurnId, content: ContentBlock[]) => {
    const common = { sessionId, turnId, content, clock, id: generateId() };
    messages.push(
      role === "user" ? createMessage({ role, ...common }) : createMessage({ role, ...common }),
    );
  };

  for (const { role, content } of converted) {
    if (role === "assistant") {
      push("assistant", current ?? openTurn(), content);
      continue;
    }
    if (isSummaryText(content[0])) {
      const [summary, after] = splitSummary(content);
      current = { ...SUMMARY_TURN_ID };
      push("user", current, summary);
      if (after.length > 0) push("user", openTurn(), after);
      continue;
    }
    const continuesToolLoop = content.some((block) => block.type === "tool_result");
    push("user", continuesToolLoop && current !== undefined ? current : openTurn(), content);
  }
  checkGenerated(messages);
  return messages;
}

/** Checks what the options produced: ids (unique, non-empty) and dates (valid). */
function checkGenerated(messages: readonly Message[]): void {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  messages.forEach((message, index) => {
    if (typeof message.id !== "string" || message.id === "") {
      issues.push({ path: [index, "id"], message: "generateId must return a non-empty string" });
    } else if (seen.has(message.id)) {
      issues.push({ path: [index, "id"], message: `duplicate message id "${message.id}"` });
    }
    seen.add(message.id);
    if (!(message.createdAt instanceof Date) || Number.isNaN(message.createdAt.getTime())) {
      issues.push({ path: [index, "createdAt"], message: "clock must return a valid Date" });
    }
  });
  if (issues.length > 0) throw new ValidationError("converted messages", issues);
}

const BLOCK_TYPES = new Set<string>([
  "text",
  "image",
  "thinking",
  "redacted_thinking",
  "tool_use",
  "tool_result",
  "opaque",
]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A structural check of our messages before conversion, so bad input is a ValidationError
 * naming the path rather than a crash. It is cheap on purpose (it runs before every request
 * on messages the session already validated); a failure is explained by the full schema.
 */
function checkMessages(messages: readonly Message[]): void {
  const ok =
    Array.isArray(messages) &&
    messages.every(
      (message) =>
        isPlainObject(message) &&
        (message.role === "user" || message.role === "assistant") &&
        Array.isArray(message.content) &&
        message.content.length > 0 &&
        message.content.every(isWellFormedBlock),
    );
  if (!ok) parseOrThrow(z.array(MessageSchema), messages, "messages");
}

function isWellFormedBlock(block: unknown): boolean {
  if (!isPlainObject(block) || typeof block.type !== "string" || !BLOCK_TYPES.has(block.type)) {
    return false;
  }
  switch (block.type) {
    case "text":
      return typeof block.text === "string";
    case "image":
      return isPlainObject(block.source) && typeof block.source.type === "string";
    case "thinking":
      return typeof block.thinking === "string" && typeof block.signature === "string";
    case "redacted_thinking":
      return typeof block.data === "string";
    case "tool_use":
      return (
        typeof block.id === "string" && typeof block.name === "string" && isPlainObject(block.input)
      );
    case "tool_result":
      return (
        typeof block.toolUseId === "string" &&
        typeof block.isError === "boolean" &&
        (typeof block.content === "string" ||
          (Array.isArray(block.content) &&
            block.content.every(
              (part) =>
                isPlainObject(part) &&
                (part.type === "text" || part.type === "image" || part.type === "opaque") &&
                isWellFormedBlock(part),
            )))
      );
    default:
      return isPlainObject(block.block);
  }
}

function reorderToolResultsFirst(blocks: ContentBlock[]): ContentBlock[] {
  const results = blocks.filter((block) => block.type === "tool_result");
  if (results.length === 0) return blocks;
  return [...results, ...blocks.filter((block) => block.type !== "tool_result")];
}

function isStringContent(blocks: readonly ContentBlock[]): blocks is [TextBlock] {
  const [only] = blocks;
  if (blocks.length !== 1 || only?.type !== "text" || only.extra === undefined) return false;
  const keys = Object.keys(only.extra);
  return keys.length === 1 && only.extra[STRING_CONTENT_KEY] === true;
}

/**
 * Converts our conversation to the `messages` of an Anthropic request: consecutive messages
 * of one role become one message (so the summary and the first kept user message are sent
 * as one user message), `tool_result` blocks lead their user message, and our own fields
 * (`compactSummary`, the adapter's markers) are left out. Messages that came from
 * {@link fromAnthropicMessages} come back exactly as they were sent, string content included.
 *
 * @example
 * await session.maybeCompact();
 * const response = await client.messages.create({
 *   model, max_tokens: 1024, messages: toAnthropicMessages(session.messages),
 * });
 * @throws {ValidationError} when a message is malformed.
 */
export function toAnthropicMessages(messages: readonly Message[]): MessageParam[] {
  checkMessages(messages);
  const params: MessageParam[] = [];
  let index = 0;
  while (index < messages.length) {
    const role = messages[index]!.role;
    const group: ContentBlock[][] = [];
    while (index < messages.length && messages[index]!.role === role) {
      group.push(messages[index]!.content);
      index += 1;
    }
    const blocks = group.flat();
    if (group.length === 1 && isStringContent(blocks)) {
      params.push({ role, content: blocks[0].text });
      continue;
    }
    const ordered = role === "user" ? reorderToolResultsFirst(blocks) : blocks;
    params.push({ role, content: toAnthropicContent(ordered) });
  }
  return params;
}
