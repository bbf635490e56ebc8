import type { ResponseInputItem } from "openai/resources/responses/responses";
import { ValidationError, type ValidationIssue } from "../core/errors.js";
import {
  type ContentBlock,
  type JsonObject,
  type Message,
  SYSTEM_MESSAGE_BLOCK_TYPE,
  type TurnId,
} from "../core/message.js";
import { type Clock, newId, systemClock } from "../core/message-factory.js";
import { rememberValid } from "../core/message-memo.js";
import { isSummaryText } from "../core/summary-format.js";
import { SUMMARY_TURN_ID } from "../core/turn.js";
import { isPlainObject } from "../internal/plain-object.js";
import {
  callBlock,
  checkedJson,
  type ItemContext,
  messageBlocks,
  opaque,
  outputBlock,
} from "./items-in.js";

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

function sideOf(item: Record<string, unknown>): Side {
  const type = item.type ?? "message";
  if (type === "message") {
    const role = item.role;
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

function itemBlocks(context: ItemContext, item: Record<string, unknown>): ContentBlock[] {
  switch (item.type ?? "message") {
    case "message":
      return messageBlocks(context, item);
    case "function_call":
    case "custom_tool_call":
      return [callBlock(context, item)];
    case "function_call_output":
    case "custom_tool_call_output":
      return [outputBlock(context, item)];
    default:
      // Reasoning (its encrypted_content verbatim), compaction, hosted tools, references.
      return [opaque(checkedJson(context, item))];
  }
}

function checkOptions(options: FromResponsesInputOptions): void {
  const issues: ValidationIssue[] = [];
  const { sessionId, firstTurnNumber, clock } = isPlainObject(options) ? options : ({} as never);
  if (!isPlainObject(options)) issues.push({ path: [], message: "must be an object" });
  if (sessionId !== undefined && (typeof sessionId !== "string" || sessionId === ""))
    issues.push({ path: ["sessionId"], message: "must be a non-empty string" });
  if (
    firstTurnNumber !== undefined &&
    !(Number.isInteger(firstTurnNumber) && (firstTurnNumber as number) >= 1)
  )
    issues.push({ path: ["firstTurnNumber"], message: "must be a whole number, 1 or more" });
  if (clock !== undefined && typeof clock !== "function")
    issues.push({ path: ["clock"], message: "must be a function" });
  if (issues.length > 0) throw new ValidationError("fromResponsesInput options", issues);
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
  checkOptions(options);
  const items: readonly unknown[] =
    typeof input === "string" ? [{ role: "user", content: input }] : input;
  if (!Array.isArray(items)) {
    throw new ValidationError("Responses input", [
      { path: [], message: "must be a string or an array of input items" },
    ]);
  }
  const sessionId = options.sessionId ?? newId();
  const createdAt = (options.clock ?? systemClock)();
  const prefix = newId();
  const issues: ValidationIssue[] = [];
  const messages: Message[] = [];
  let turnNumber = (options.firstTurnNumber ?? 1) - 1;
  let current: TurnId | undefined;
  let open: { side: Side; content: ContentBlock[] } | undefined;
  const push = (role: Message["role"], turnId: TurnId, content: ContentBlock[]) => {
    const id = `${prefix}-${messages.length}`;
    messages.push({ role, id, sessionId, turnId, createdAt, content } as Message);
  };
  const openTurn = () => {
    turnNumber += 1;
    current = { owner: "u", number: turnNumber };
    return current;
  };
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index];
    const context = { issues, path: [index] };
    if (!isPlainObject(item)) {
      issues.push({ path: [index], message: "must be an input item object" });
      continue;
    }
    const side = sideOf(item);
    const blocks = itemBlocks(context, item);
    if ((side === "assistant" || side === "tool") && open?.side === side) {
      open.content.push(...blocks);
      continue;
    }
    open = undefined;
    if (side === "system") {
      const block = { type: SYSTEM_MESSAGE_BLOCK_TYPE, message: item as JsonObject };
      push("user", current ?? { owner: "u", number: turnNumber + 1 }, [{ type: "opaque", block }]);
    } else if (side === "compaction") {
      // It stands for what it compacted: the summary's turn at the start, in place elsewhere.
      push(
        "assistant",
        messages.length === 0 ? { ...SUMMARY_TURN_ID } : (current ?? openTurn()),
        blocks,
      );
      if (messages.length === 1) current = undefined;
    } else if (side === "user") {
      if (isSummaryText(blocks[0])) current = { ...SUMMARY_TURN_ID };
      push("user", isSummaryText(blocks[0]) ? (current as TurnId) : openTurn(), blocks);
    } else {
      open = { side, content: blocks };
      push(side === "tool" ? "user" : "assistant", current ?? openTurn(), open.content);
    }
  }
  if (issues.length > 0) throw new ValidationError("Responses input", issues);
  rememberValid(messages);
  return messages;
}
