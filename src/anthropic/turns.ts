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
  type TurnId,
} from "../core/message.js";
import { type Clock, newId, newIdSequence, systemClock } from "../core/message-factory.js";
import { isValidDate } from "../core/message-fast-check.js";
import { rememberBuilt } from "../core/message-memo.js";
import { leadsSummary, splitSummary } from "../core/summary-format.js";
import { SUMMARY_TURN_ID } from "../core/turn.js";
import { checkConversionOptions } from "../internal/conversion-options.js";
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

/** The messages read from the params: each one's role, and its blocks or, for a system message, its JSON. */
interface ReadMessages {
  roles: WireRole[];
  bodies: (ContentBlock[] | JsonObject)[];
}

type WireRole = WireMessage["role"];

/**
 * Reads every message param (the common shapes by {@link QuickMessageReader}, the rest by the
 * schemas), throwing one ValidationError that names each bad path.
 */
function readMessages(params: readonly unknown[]): ReadMessages {
  const issues: ValidationIssue[] = [];
  // One entry per param (each is read or reported), so made at their size, never grown.
  const roles: WireRole[] = new Array(params.length);
  const bodies: (ContentBlock[] | JsonObject)[] = new Array(params.length);
  const reader = new QuickMessageReader();
  let first: number | undefined;
  for (let index = 0; index < params.length; index += 1) {
    const param = params[index];
    const blocks = reader.read(param);
    if (blocks !== undefined) {
      roles[index] = reader.role;
      bodies[index] = blocks;
    } else {
      const message = parseWireMessage(param, ["messages", index], issues);
      if (message === undefined) continue;
      roles[index] = message.role;
      bodies[index] =
        message.role === "system" ? message.message : contentFromWire(message.content);
    }
    first ??= index;
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
  if (issues.length > 0) throw new ValidationError("Anthropic messages", issues);
  return { roles, bodies };
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
 * @throws {ValidationError} naming the path of each malformed message or block, or a system
 * message with content in the first place.
 */
export function fromAnthropicMessages(
  params: readonly MessageParam[] | readonly unknown[],
  options: FromAnthropicOptions = {},
): Message[] {
  const parsedOptions = checkConversionOptions(options, "fromAnthropicMessages options", {
    generateId: true,
  });
  if (!Array.isArray(params)) parseOrThrow(MessageParamsWireSchema, params, "Anthropic messages");
  return anthropicMessagesToOurs(params, parsedOptions);
}

/**
 * {@link fromAnthropicMessages} of an array, its options checked; with `idPrefix` (a one-call
 * helper's), ids are it and the message's position, the same at each call.
 */
export function anthropicMessagesToOurs(
  params: readonly unknown[],
  parsedOptions: FromAnthropicOptions & { idPrefix?: string },
): Message[] {
  const { roles, bodies } = readMessages(params);
  const builder = new TurnBuilder(parsedOptions);
  let opening = true;
  for (let index = 0; index < roles.length; index += 1) {
    const role = roles[index]!;
    if (role === "system") builder.addSystem(bodies[index] as JsonObject);
    else {
      builder.add(role, bodies[index] as ContentBlock[], opening);
      opening = false;
    }
  }
  checkBuilt(builder, parsedOptions);
  return builder.messages;
}

/**
 * What the options made (ids, the date, turn numbers) is checked here, where it enters; the
 * rest the wire checks vouch for. Remembered as checked, later checks of these messages (a
 * compaction's, `toAnthropicMessages`) find them known; anything amiss goes to the full check,
 * which names it.
 */
function checkBuilt(builder: TurnBuilder, options: FromAnthropicOptions): void {
  const { messages } = builder;
  if (
    (options.generateId === undefined || idsDistinct(messages)) &&
    (messages.length === 0 || isValidDate(messages[0]!.createdAt)) &&
    Number.isSafeInteger(builder.lastTurnNumber + 1)
  ) {
    rememberBuilt(messages);
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

/** Builds our messages in order, assigning turns the way `AgentSession` does. */
class TurnBuilder {
  readonly messages: Message[] = [];
  readonly #sessionId: string;
  readonly #createdAt: Date;
  readonly #generateId: () => string;
  #turnNumber: number;
  #current: TurnId | undefined;
  #opened = false;

  constructor(options: FromAnthropicOptions & { idPrefix?: string }) {
    this.#sessionId = options.sessionId ?? newId();
    this.#createdAt = (options.clock ?? systemClock)();
    const { idPrefix } = options;
    this.#generateId =
      options.generateId ??
      (idPrefix === undefined ? newIdSequence() : () => `${idPrefix}${this.messages.length}`);
    this.#turnNumber = (options.firstTurnNumber ?? 1) - 1;
  }

  /** A mid-conversation system message, verbatim, in the turn it follows (before any: the turn the next user message opens). */
  addSystem(message: JsonObject): void {
    const turnId = this.#current ?? { owner: "u", number: this.#turnNumber + 1 };
    this.#push("user", turnId, [systemMessageBlock(message)]);
  }

  /** Adds a user or assistant message; `opening`: the first that is not a system message. */
  add(role: "user" | "assistant", content: ContentBlock[], opening: boolean): void {
    // On-demand compaction's block leads the conversation (a threshold compaction's block,
    // later in a reply, is part of that reply).
    if (opening && isCompactionBlock(content[0])) {
      this.#push(role, { ...SUMMARY_TURN_ID }, content);
      this.#current = undefined;
    } else if (role === "assistant") {
      this.#push("assistant", this.#current ?? this.#openTurn(), content);
    } else {
      this.#addUser(content);
    }
  }

  /** The number of the last turn opened (or the one before the first): a system message may take the next. */
  get lastTurnNumber(): number {
    return this.#turnNumber;
  }

  /** A user message: the summary (and the kept message after it), a tool loop's results, or a new turn. */
  #addUser(content: ContentBlock[]): void {
    // The library writes its summaries and notices only before the first turn it opens.
    if (!this.#opened && leadsSummary(content[0])) {
      const { library, rest } = splitSummary(content);
      // The summary's turn holds the library's messages alone: what follows opens a turn (as
      // after a compaction block).
      for (const blocks of library) this.#push("user", { ...SUMMARY_TURN_ID }, blocks);
      this.#current = undefined;
      if (rest.length > 0) this.#push("user", this.#openTurn(), rest);
      return;
    }
    const continuesToolLoop = hasToolResult(content);
    const turnId =
      continuesToolLoop && this.#current !== undefined ? this.#current : this.#openTurn();
    this.#push("user", turnId, content);
  }

  #openTurn(): TurnId {
    this.#opened = true;
    this.#turnNumber += 1;
    this.#current = { owner: "u", number: this.#turnNumber };
    return this.#current;
  }

  #push(role: "user" | "assistant", turnId: TurnId, content: ContentBlock[]): void {
    this.messages.push({
      role,
      id: this.#generateId(),
      sessionId: this.#sessionId,
      // One object per turn, shared by its messages (no one changes a message in place).
      turnId,
      createdAt: this.#createdAt,
      content,
    });
  }
}
