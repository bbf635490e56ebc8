import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { isCompactionBlock } from "../core/conversation-structure.js";
import { assertMessages } from "../core/entry-validation.js";
import { parseOrThrow, ValidationError, type ValidationIssue } from "../core/errors.js";
import {
  type ContentBlock,
  type JsonObject,
  type Message,
  SYSTEM_MESSAGE_BLOCK_TYPE,
  type SystemMessageBlock,
} from "../core/message.js";
import { type Clock, newIdSequence } from "../core/message-factory.js";
import { isValidDate } from "../core/message-fast-check.js";
import { rememberConversation } from "../core/message-memo.js";
import { estimateContentTokens } from "../core/tokens.js";
import { checkConversionOptions, checkMadeByOptions } from "../internal/conversion-options.js";
import type { ItemOrigins } from "../internal/item-origins.js";
import { TurnBuilder } from "../internal/turn-builder.js";
import { arrayLength, unreadableIssue } from "../internal/unreadable.js";
import { contentFromWire } from "./blocks.js";
import { QuickMessageReader } from "./quick-message-blocks.js";
import { MessageParamsWireSchema, parseWireMessage, type WireMessage } from "./wire-schemas.js";

/** Options of {@link fromAnthropicMessages}. */
export interface FromAnthropicOptions {
  /** The session id stamped on every message. @default a new uuid v7 */
  sessionId?: string;
  /** The number of the first turn (owner `"u"`). @default 1 */
  firstTurnNumber?: number;
  /** Clock for `createdAt`, read once per call: every message gets that instant. @default the wall clock */
  clock?: Clock;
  /** Makes each message id. @default a uuid v7 per message (successive ones from a new one per call) */
  generateId?: () => string;
}

/**
 * The messages read from the params: each one's role, and its blocks or, for a system message,
 * its JSON; for those of blocks, their estimate (`estimateContentTokens`) and whether a tool id
 * among them is one the API refuses; and whether a tool use had an earlier one's id (told only
 * when asked).
 */
interface ReadMessages {
  roles: WireRole[];
  bodies: (ContentBlock[] | JsonObject)[];
  tokens: Float64Array;
  unsendable: Uint8Array;
  reused: boolean;
}

type WireRole = WireMessage["role"];

/**
 * Reads every message param (the common shapes by {@link QuickMessageReader}, the rest by the
 * schemas), throwing one ValidationError that names each bad path. `stateless`: the messages
 * die with the call (a one-call helper's): tool inputs are kept, not copied, and reused tool
 * ids are told.
 */
function readMessages(params: readonly unknown[], stateless: boolean): ReadMessages {
  const issues: ValidationIssue[] = [];
  const count = arrayLength(params, "Anthropic messages") ?? 0;
  // One entry per param (each is read or reported), so made at their size, never grown.
  const roles: WireRole[] = new Array(count);
  const bodies: (ContentBlock[] | JsonObject)[] = new Array(count);
  const tokens = new Float64Array(count);
  const unsendable = new Uint8Array(count);
  const reader = new QuickMessageReader(stateless, stateless ? new Set() : undefined);
  let first: number | undefined;
  let index = 0;
  let cause: unknown;
  // A getter (or a proxy's trap) that throws is bad input: an issue naming where it throws, the
  // first error the cause; the reading goes on after it. The `try` is around the loop, not each
  // message (nothing on the happy path).
  while (index < count) {
    try {
      for (; index < count; index += 1) {
        const param = params[index];
        const blocks = reader.read(param);
        if (blocks !== undefined) {
          roles[index] = reader.role;
          bodies[index] = blocks;
        } else {
          const message = parseWireMessage(param, ["messages", index], issues);
          if (message === undefined) continue;
          roles[index] = message.role;
          if (message.role === "system") bodies[index] = message.message;
          else {
            const read = contentFromWire(message.content);
            reader.noted(read);
            bodies[index] = read;
          }
        }
        if (roles[index] !== "system") {
          tokens[index] = reader.tokens;
          unsendable[index] = reader.unsendable ? 1 : 0;
        }
        first ??= index;
      }
    } catch (error) {
      cause ??= error;
      issues.push(unreadableIssue(params, index, ["messages"]));
      index += 1;
    }
  }
  // The first message read: the first param unless it was malformed (then this adds to its issues).
  if (
    first !== undefined &&
    roles[first] === "system" &&
    carriesContent(bodies[first] as JsonObject)
  ) {
    issues.push({
      path: ["messages", 0, "role"],
      message:
        'a "system" message with content cannot be the first message: pass the system prompt as the request\'s `system`',
    });
  }
  if (issues.length > 0)
    throw new ValidationError("Anthropic messages", issues, cause === undefined ? {} : { cause });
  return { roles, bodies, tokens, unsendable, reused: reader.reused };
}

function carriesContent(message: JsonObject): boolean {
  const { content } = message;
  return typeof content === "string"
    ? content !== ""
    : Array.isArray(content) && content.length > 0;
}

/** The block that carries a `role: "system"` message, verbatim. */
function systemMessageBlock(message: JsonObject): SystemMessageBlock {
  return { type: "opaque", block: { type: SYSTEM_MESSAGE_BLOCK_TYPE, message } };
}

/**
 * Converts an Anthropic conversation (the `messages` of a request) to ours, losslessly, and
 * assigns turns the way `AgentSession` does: a user message opens a new turn (owner `"u"`,
 * numbered from `firstTurnNumber`) unless it carries tool results, which continue the tool
 * loop of the current turn; assistant messages stay in the current turn. A user message that
 * starts with the compaction summary (`SUMMARY_PREFIX`) or the last resort's notice
 * (`TRIM_NOTICE`) becomes the summary message (turn `u0`) with the records and user words
 * after it, and the rest of it, the first kept user message, a message of its own. A first
 * message led by the API's `compaction` block is the summary too (turn `u0`), kept whole. The
 * summary's turn holds the summary alone: the message after it opens a turn. A mid-conversation `role: "system"` message becomes a message of its own in
 * the turn it follows, holding it verbatim ({@link SystemMessageBlock}).
 *
 * @example
 * const messages = fromAnthropicMessages(params, { sessionId: "s1" });
 * session.append(...messages);
 * @throws {ValidationError} naming the path of each malformed message or block, of a field
 * whose getter (or proxy's trap) threw (its error the cause), or a system message with content
 * in the first place.
 */
export function fromAnthropicMessages(
  params: readonly MessageParam[] | readonly unknown[],
  options: FromAnthropicOptions = {},
): Message[] {
  const parsedOptions = checkConversionOptions(options, "fromAnthropicMessages options", {
    generateId: true,
  });
  if (arrayLength(params, "Anthropic messages") === undefined)
    parseOrThrow(MessageParamsWireSchema, params, "Anthropic messages");
  return anthropicMessagesToOurs(params, parsedOptions);
}

/**
 * {@link fromAnthropicMessages} of an array, its options checked; with `idPrefix` (a one-call
 * helper's), ids are it and the message's position, the same at each call. With `origins` (a
 * one-call helper's, whose messages die with the call), tool inputs are the caller's own, not
 * copies (unless an archive keeps what is removed: `origins.sharesItems`); `origins` is told of each message read from one param alone, and `mends` when a tool
 * id is one the API refuses or a tool use has an earlier one's id (both written anew).
 */
export function anthropicMessagesToOurs(
  params: readonly unknown[],
  parsedOptions: FromAnthropicOptions & { idPrefix?: string },
  origins?: ItemOrigins<MessageParam>,
): Message[] {
  const read = readMessages(params, origins?.sharesItems === true);
  const { roles, bodies } = read;
  const { generateId, idPrefix } = parsedOptions;
  const builder = new TurnBuilder({
    ...parsedOptions,
    // A uuid v7 per message unless the caller (or a one-call helper's position) names them.
    messageId: generateId ?? (idPrefix === undefined ? newIdSequence() : undefined),
  });
  const { messages } = builder;
  // The estimate of the messages, from each param's as read (a message split or a system
  // message is estimated as built).
  let tokens = 0;
  let opening = true;
  for (let index = 0; index < roles.length; index += 1) {
    const role = roles[index]!;
    const made = messages.length;
    if (role === "system") {
      builder.addSystem([systemMessageBlock(bodies[index] as JsonObject)]);
      tokens += estimateContentTokens(messages[made]!.content);
      continue;
    }
    const blocks = bodies[index] as ContentBlock[];
    addMessage(builder, role, blocks, opening);
    opening = false;
    const after = messages.length;
    if (after === made + 1 && messages[made]!.content === blocks) tokens += read.tokens[index]!;
    else
      for (let at = made; at < after; at += 1)
        tokens += estimateContentTokens(messages[at]!.content);
    // A tool id the API refuses is written anew (see sendableToolId), not as it came.
    if (origins === undefined) continue;
    if (read.unsendable[index] === 1) origins.mends = true;
    else origins.noteRead(made, after, index);
  }
  // A tool use's id an earlier one had is written anew (see `withDistinctToolIds`).
  if (read.reused && origins !== undefined) origins.mends = true;
  checkBuilt(builder, parsedOptions, tokens);
  return messages;
}

/**
 * What the options made (ids, the date, turn numbers) is checked here, where it enters; the
 * rest the wire checks vouch for. Remembered as checked, later checks of these messages (a
 * compaction's, `toAnthropicMessages`) find them known; anything amiss goes to the full check,
 * which names it.
 */
function checkBuilt(builder: TurnBuilder, options: FromAnthropicOptions, tokens: number): void {
  const { messages } = builder;
  // Turns past 2^53 - 1 are the options' doing: named there, as every converter names them.
  if (!Number.isSafeInteger(messages.at(-1)?.turnId.number ?? 0))
    checkMadeByOptions(messages, "fromAnthropicMessages options");
  if (
    (options.generateId === undefined || idsDistinct(messages)) &&
    (messages.length === 0 || isValidDate(messages[0]!.createdAt)) &&
    Number.isSafeInteger(builder.lastTurnNumber + 1)
  ) {
    // As `rememberBuilt` remembers them, with the estimate worked out as they were read.
    if (Number.isSafeInteger(messages.at(-1)?.turnId.number ?? 0))
      rememberConversation(messages, tokens);
    return;
  }
  assertMessages(messages, "messages from fromAnthropicMessages (see its generateId and clock)");
}

/** Whether every message's id is a non-empty string, and no two are the same. */
function idsDistinct(messages: readonly Message[]): boolean {
  const seen = new Set<string>();
  for (let index = 0; index < messages.length; index += 1) {
    const { id } = messages[index]!;
    if (typeof id !== "string" || id === "" || seen.has(id)) return false;
    seen.add(id);
  }
  return true;
}

function hasToolResult(blocks: readonly ContentBlock[]): boolean {
  for (let index = 0; index < blocks.length; index += 1)
    if (blocks[index]!.type === "tool_result") return true;
  return false;
}

/**
 * Adds a user or assistant message as the session numbers turns; `opening`: the first that is
 * not a system message. On-demand compaction's block leads the conversation (a threshold
 * compaction's block, later in a reply, is part of that reply); a user message of tool results
 * continues the tool loop of the current turn.
 */
function addMessage(
  builder: TurnBuilder,
  role: "user" | "assistant",
  content: ContentBlock[],
  opening: boolean,
): void {
  if (opening && isCompactionBlock(content[0])) builder.addSummary(role, content);
  else if (role === "assistant" || (builder.inTurn && hasToolResult(content)))
    builder.addInTurn(role, content);
  else builder.addUser(content);
}
