import type { ResponseInputItem } from "openai/resources/responses/responses";
import { ValidationError, type ValidationIssue } from "../core/errors.js";
import {
  type ContentBlock,
  type JsonObject,
  type Message,
  SYSTEM_MESSAGE_BLOCK_TYPE,
} from "../core/message.js";
import type { Clock } from "../core/message-factory.js";
import { rememberConversation } from "../core/message-memo.js";
import { listOf } from "../core/message-shapes.js";
import {
  estimateBlockTokens,
  estimateContentTokens,
  MESSAGE_OVERHEAD_TOKENS,
} from "../core/tokens.js";
import { checkConversionOptions, checkMadeByOptions } from "../internal/conversion-options.js";
import type { ItemOrigins } from "../internal/item-origins.js";
import { normalizeJson } from "../internal/json-value.js";
import { isNonEmptyString } from "../internal/non-empty-string.js";
import { isPlainObject } from "../internal/plain-object.js";
import { TurnBuilder, type TurnBuilderOptions } from "../internal/turn-builder.js";
import {
  callBlock,
  checkedJson,
  type ItemContext,
  messageBlocks,
  opaque,
  outputBlock,
} from "./items-in.js";
import {
  type CallEstimate,
  quickCallBlock,
  quickMessageBlocks,
  quickOutputBlock,
} from "./items-quick.js";
import { sendsAsRead } from "./responses-output.js";

/** Options of {@link fromResponsesInput}. */
export interface FromResponsesInputOptions {
  /** The session id stamped on every message. @default a new uuid v7 */
  sessionId?: string;
  /** The number of the first turn (owner `"u"`). @default 1 */
  firstTurnNumber?: number;
  /** Clock for `createdAt`, read once per call. @default the wall clock */
  clock?: Clock;
}

/** The type of the opaque item the `/responses/compact` endpoint writes. */
export const COMPACTION_ITEM_TYPE = "compaction";

/** Which message an item's blocks join: the user's side, the model's, or one of its own. */
type Side = "user" | "assistant" | "system" | "compaction" | "tool";

/**
 * An item's type: a message when it names none, but for an `id` alone, which is a reference
 * (the SDK's `ItemReference`, whose `type` may be left out or `null`).
 */
function itemType(item: Record<string, unknown>): unknown {
  const type = item["type"];
  if (type !== undefined && type !== null) return type;
  const reference =
    typeof item["id"] === "string" && item["role"] === undefined && item["content"] === undefined;
  return reference ? "item_reference" : "message";
}

/** Which message an item's blocks join (`assistant`: an item the model produced). */
export function sideOf(item: Record<string, unknown>): Side {
  const type = itemType(item);
  if (type === "message") {
    const role = item["role"];
    return role === "system" || role === "developer"
      ? "system"
      : role === "assistant"
        ? "assistant"
        : "user";
  }
  if (type === COMPACTION_ITEM_TYPE) return "compaction";
  if (type === "compaction_trigger" || type === "mcp_approval_response") return "tool";
  return typeof type === "string" && type.endsWith("_output") ? "tool" : "assistant";
}

/** One item's blocks, by the full reading (issues reported under `context`). */
export function itemBlocks(context: ItemContext, item: Record<string, unknown>): ContentBlock[] {
  const type = itemType(item);
  switch (type) {
    case "message":
      return messageBlocks(context, item);
    case "function_call":
    case "custom_tool_call":
      return listOf(callBlock(context, item));
    case "function_call_output":
    case "custom_tool_call_output":
      return listOf<ContentBlock>(outputBlock(context, item));
    default:
      // An item's type names it: anything else the API refuses.
      if (!isNonEmptyString(type)) {
        context.issues.push({
          path: [...context.path, "type"],
          message: "must be a non-empty string naming the item's type",
        });
        return [];
      }
      // Reasoning (its encrypted_content verbatim), compaction, hosted tools, references; a
      // reference without its type marked as the API's own, so the writer sends it as it came.
      return [opaque(checkedJson(context, item), type === item["type"] ? {} : { item: {} })];
  }
}

/**
 * Converts a Responses API `input` (an item array, or a string) to our messages, losslessly:
 * {@link toResponsesInput} gives the same items back. The items of one model turn (reasoning,
 * messages, function calls, hosted tool calls) form one assistant message, in order; the
 * outputs after them one user message of tool results; a user message item its own message,
 * opening a turn; a `system` or `developer` message one holding it verbatim. Reasoning items
 * (their `encrypted_content`), compaction items and every item type not modelled are carried
 * whole and in place; fields our blocks do not model are kept under `extra.openai`.
 *
 * @example
 * const messages = fromResponsesInput(input, { sessionId: session.sessionId });
 * @throws {ValidationError} naming the path of each malformed item.
 */
export function fromResponsesInput(
  input: string | readonly ResponseInputItem[] | readonly unknown[],
  options: FromResponsesInputOptions = {},
): Message[] {
  checkConversionOptions(options, "fromResponsesInput options");
  const items: readonly unknown[] =
    typeof input === "string" ? [{ role: "user", content: input }] : input;
  if (!Array.isArray(items)) {
    throw new ValidationError("Responses input", [
      { path: [], message: "must be a string or an array of input items" },
    ]);
  }
  return responsesInputMessages(items, options);
}

/**
 * {@link fromResponsesInput} of an array, its options checked (a one-call helper's `idPrefix`
 * too); `origins` told of the items each message was read from alone.
 */
export function responsesInputMessages(
  items: readonly unknown[],
  options: TurnBuilderOptions,
  origins?: ItemOrigins<ResponseInputItem>,
): Message[] {
  const { messages, tokens } = readEstimated(items, options, true, origins);
  // Remembered as checked, of the estimate made as each message was (`rememberBuilt`'s).
  rememberConversation(checkMadeByOptions(messages, "fromResponsesInput options"), tokens);
  return messages;
}

/**
 * The messages of `items`, each item read by the quick reading when `quick` and it takes it
 * (`items-quick.ts`), else by the full one; `items-quick.test.ts` holds the two to the same.
 * @throws {ValidationError} naming the path of each malformed item.
 */
export function readItems(
  items: readonly unknown[],
  options: TurnBuilderOptions,
  quick: boolean,
  origins?: ItemOrigins<ResponseInputItem>,
): Message[] {
  return readEstimated(items, options, quick, origins).messages;
}

/** {@link readItems}, and the messages' estimate (`estimateTokens`'). */
export function readEstimated(
  items: readonly unknown[],
  options: TurnBuilderOptions,
  quick: boolean,
  origins?: ItemOrigins<ResponseInputItem>,
): { messages: Message[]; tokens: number } {
  const issues: ValidationIssue[] = [];
  const builder = new InputBuilder(options, origins);
  let cause: unknown;
  let index = 0;
  // A getter (or a proxy's trap) that throws is bad input: an issue naming the item, the first
  // error the cause; the reading goes on after it. The `try` is around the loop, not each item.
  while (index < items.length) {
    try {
      for (; index < items.length; index += 1) {
        const item = items[index];
        builder.item = index;
        if (!isPlainObject(item))
          issues.push({ path: [index], message: "must be an input item object" });
        else if (!quick || !builder.addQuick(item))
          builder.add(item, itemBlocks({ issues, path: [index] }, item), !holdsInputText(item));
      }
    } catch (error) {
      cause ??= error;
      issues.push({ path: [index], message: "could not be read (a getter or proxy threw)" });
      index += 1;
    }
  }
  if (issues.length > 0)
    throw new ValidationError("Responses input", issues, cause === undefined ? {} : { cause });
  builder.item = items.length;
  const messages = builder.finish();
  return { messages, tokens: builder.tokens };
}

/** Whether an assistant message item holds an `input_text` part (written back as `output_text`). */
function holdsInputText(item: Record<string, unknown>): boolean {
  const { content } = item;
  if (item["role"] !== "assistant" || !Array.isArray(content)) return false;
  for (const part of content) if (isPlainObject(part) && part["type"] === "input_text") return true;
  return false;
}

/** Builds our messages from input items in order, grouping a model turn's items and numbering turns. */
class InputBuilder {
  readonly #turns: TurnBuilder;
  /** The side whose run of items the open message is still joining (none open: `undefined`). */
  #side: Side | undefined;
  /**
   * The open message's blocks: the first item's own array, or, once others join it, the
   * builder's reused {@link #run} (its first {@link #length} entries). The message is made when
   * the run ends, its content an array of the run's length (one grown by `push` has room for 17).
   */
  #content: ContentBlock[] = [];
  readonly #run: ContentBlock[] = [];
  #length = 0;
  readonly #origins: ItemOrigins<ResponseInputItem> | undefined;
  /** The index of the item being added (after the last: their count, at {@link finish}). */
  item = 0;
  /** The item the open message started at. */
  #from = 0;
  /** Whether the writing gives back every item of the open message as it came. */
  #exact = true;
  /** Whether each of its blocks was read quickly: none the writing leaves out, then. */
  #quick = true;
  /** The estimate of the messages made (`estimateTokens`'), each as it was made. */
  tokens = 0;
  /** The estimate of the open message's blocks. */
  #blockTokens = 0;
  /** Where the quick reading of a call adds its block's estimate. */
  readonly #read: CallEstimate = { tokens: 0 };

  constructor(options: TurnBuilderOptions, origins?: ItemOrigins<ResponseInputItem>) {
    this.#turns = new TurnBuilder(options);
    this.#origins = origins;
  }

  /** The messages built, the open one ended. */
  finish(): Message[] {
    this.#close();
    return this.#turns.messages;
  }

  /**
   * Adds `item` when the quick reading takes it (`items-quick.ts`); `false` leaves it. Each
   * field is read once: what is checked is what is kept, and a getter is not asked twice.
   */
  addQuick(item: Record<string, unknown>): boolean {
    const type = item["type"];
    if (type === "function_call") {
      const read = this.#read;
      read.tokens = 0;
      return this.#joinOne("assistant", quickCallBlock(item, type, read), read.tokens);
    }
    if (type === "function_call_output") {
      const block = quickOutputBlock(item, type);
      return this.#joinOne("tool", block, block === undefined ? 0 : estimateBlockTokens(block));
    }
    // A message item (with no `type`, it is one when it has a role: see `itemType`).
    if (type !== "message" && type !== undefined && type !== null) return false;
    const { role, content } = item;
    const blocks = quickMessageBlocks(item, type, role, content);
    if (blocks === undefined) return false;
    this.#addOf(role === "assistant" ? "assistant" : "user", item, blocks, true, true);
    return true;
  }

  /**
   * Adds one item's blocks: to the open message of its side, or as a message of its own;
   * `exact`: the writing gives the item back as it came.
   */
  add(item: Record<string, unknown>, blocks: ContentBlock[], exact: boolean): void {
    this.#addOf(sideOf(item), item, blocks, exact, false);
  }

  /** {@link add} of an item whose side is known; `quick`: its blocks were read quickly. */
  #addOf(
    side: Side,
    item: Record<string, unknown>,
    blocks: ContentBlock[],
    exact: boolean,
    quick: boolean,
  ): void {
    if (side === "assistant" || side === "tool") {
      this.#join(side, blocks);
      this.#exact &&= exact;
      this.#quick &&= quick;
      return;
    }
    this.#close();
    const made = this.#turns.messages.length;
    if (side === "system") {
      // Kept whole, as a copy: the caller's item stays theirs (the full reading checked it).
      const message = normalizeJson(item, [], []) as JsonObject;
      this.#turns.addSystem([
        { type: "opaque", block: { type: SYSTEM_MESSAGE_BLOCK_TYPE, message } },
      ]);
    } else if (side === "compaction") {
      // A compaction item stands for what it compacted.
      this.#turns.addCompacted("assistant", blocks);
    } else this.#turns.addUser(blocks);
    const { messages } = this.#turns;
    for (let index = made; index < messages.length; index += 1)
      this.tokens += estimateContentTokens(messages[index]!.content);
    // A system message is written as it was read, by the writer itself.
    if (exact && (quick || side === "system" || sendsAsRead(messages[made]!)))
      this.#origins?.noteRead(made, messages.length, this.item);
  }

  /** Adds a quickly read block of `side`, of that estimate (`false` when it was not read). */
  #joinOne(side: "assistant" | "tool", block: ContentBlock | undefined, tokens: number): boolean {
    if (block === undefined) return false;
    if (this.#side !== side) this.#open(side, listOf(block), 1);
    else {
      if (this.#content !== this.#run) this.#toRun();
      this.#run[this.#length] = block;
      this.#length += 1;
    }
    this.#blockTokens += tokens;
    return true;
  }

  /** Adds an item's blocks to the open message of `side`, or opens one with them. */
  #join(side: "assistant" | "tool", blocks: ContentBlock[]): void {
    if (this.#side !== side) this.#open(side, blocks, blocks.length);
    else {
      if (this.#content !== this.#run) this.#toRun();
      for (let index = 0; index < blocks.length; index += 1) {
        this.#run[this.#length] = blocks[index]!;
        this.#length += 1;
      }
    }
    for (let index = 0; index < blocks.length; index += 1)
      this.#blockTokens += estimateBlockTokens(blocks[index]!);
  }

  #open(side: "assistant" | "tool", content: ContentBlock[], length: number): void {
    this.#close();
    this.#side = side;
    this.#content = content;
    this.#length = length;
    this.#from = this.item;
    this.#exact = true;
    this.#quick = true;
    this.#blockTokens = 0;
  }

  /** Moves the open message's blocks into the reused run, for more to join them. */
  #toRun(): void {
    const content = this.#content;
    for (let index = 0; index < this.#length; index += 1) this.#run[index] = content[index]!;
    this.#content = this.#run;
  }

  /** Ends the open message: makes it, of its blocks, in the turn. */
  #close(): void {
    const side = this.#side;
    if (side === undefined) return;
    this.#side = undefined;
    const content = this.#content === this.#run ? this.#run.slice(0, this.#length) : this.#content;
    const { messages } = this.#turns;
    const made = messages.length;
    this.#turns.addInTurn(side === "tool" ? "user" : "assistant", content);
    this.tokens += MESSAGE_OVERHEAD_TOKENS + this.#blockTokens;
    // The run's items: from its first to the one before the item that ended it (or the end).
    if (this.#exact && (this.#quick || sendsAsRead(messages[made]!)))
      this.#origins?.note(made, this.#from, this.item);
  }
}
