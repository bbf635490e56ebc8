import * as z from "zod/mini";
import { parseOrThrow, ValidationError, type ValidationIssue } from "../core/errors.js";
import { exchangeIssues } from "../core/exchanges.js";
import { interruptedResult } from "../core/interrupted-calls.js";
import {
  type AssistantMessage,
  type ContentBlock,
  type Message,
  SYSTEM_MESSAGE_BLOCK_TYPE,
  type ToolResultBlock,
  type TurnId,
  type UserMessage,
} from "../core/message.js";
import { type Clock, createMessage } from "../core/message-factory.js";
import { rememberValid } from "../core/message-memo.js";
import {
  BOOLEAN_SCHEMA,
  NON_EMPTY_STRING_SCHEMA,
  optionsSchema,
  stringIssue,
} from "../core/option-schemas.js";
import { keepThinkingValid } from "../core/preserved-thinking.js";
import { ContentBlockSchema, MessageSchema } from "../core/schemas.js";
import { isPlainObject } from "../internal/plain-object.js";
import type { ArchiveRecord } from "./archive.js";
import type { ArchiveKeeper } from "./archive-keeper.js";
import { clampMessage, clampRecord } from "./clamp.js";
import { type Usage, UsageSchema } from "./context-meter.js";
import type { CompactionEvent } from "./events.js";
import { handedOverTokens } from "./handed-over.js";
import { type History, USER_TURN_OWNER } from "./history.js";
import type { Intake } from "./session-entry.js";
import { type ToolResultInput, toToolResultBlocks } from "./tool-results.js";

/** What the intake reads of its session. */
export interface MessageIntakeSettings {
  history: History;
  sessionId: string;
  clock: Clock;
  /** The largest share of the window one text may take; longer ones are clamped. */
  maxBlockShare: number;
  /** Where clamped originals are kept (it names their recall handles); none with `archive: false`. */
  archive: ArchiveKeeper | undefined;
  /** Keep the thinking a clamp made stale (`keepStaleThinking`). */
  keepStaleThinking: boolean;
}

const NON_EMPTY_TEXT = z.string().check(z.minLength(1, "must be a non-empty string"));
const MESSAGES = z.array(MessageSchema);
const ASSISTANT_CONTENT = z
  .array(ContentBlockSchema)
  .check(z.minLength(1, "must hold at least one block"));

const AddUserTextOptionsSchema = optionsSchema({ pinned: z.exactOptional(BOOLEAN_SCHEMA) });
const AddAssistantOptionsSchema = optionsSchema({ id: z.exactOptional(NON_EMPTY_STRING_SCHEMA) });

/**
 * What is wrong with compact summaries' entries, `[toolUseId, summary]` each: an issue at
 * `[entry, 0]` for an id that is not a non-empty string, at `[entry, 1]` for a summary that is
 * not a string.
 */
function summaryIssues(entries: readonly (readonly [unknown, unknown])[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  entries.forEach(([toolUseId, summary], index) => {
    const idIssue = toolUseId === "" ? "must be a non-empty tool use id" : stringIssue(toolUseId);
    if (idIssue !== undefined) issues.push({ path: [index, 0], message: idIssue });
    const summaryIssue = stringIssue(summary);
    if (summaryIssue !== undefined) issues.push({ path: [index, 1], message: summaryIssue });
  });
  return issues;
}

/** The `pinned` option of `addUserText`. @throws {ValidationError} unless an object with a boolean `pinned`. */
function parsePinned(options: unknown): boolean {
  if (options === undefined) return false;
  return parseOrThrow(AddUserTextOptionsSchema, options, "addUserText options").pinned === true;
}

/** The `id` option of `addAssistant`. @throws {ValidationError} unless a non-empty string. */
function parseAssistantId(options: unknown): string | undefined {
  if (options === undefined) return undefined;
  return parseOrThrow(AddAssistantOptionsSchema, options, "addAssistant options").id;
}

/**
 * Where data enters a session: messages, tool results, usage, summaries and pins are
 * validated here, once (long texts clamped, ids and turns assigned), and built into a
 * {@link Intake} without changing anything; the core applies it. Everything behind trusts it.
 */
export class MessageIntake {
  readonly #settings: MessageIntakeSettings;

  constructor(settings: MessageIntakeSettings) {
    this.#settings = settings;
  }

  /** Messages as they are. All are validated first; a bad one refuses them all. */
  append(messages: unknown[]): Intake<void> {
    // Messages the library built and handed over are its own already: checked (their
    // estimates worked out as they were, remembered), not copied.
    const tokens = handedOverTokens(messages);
    if (tokens !== undefined) rememberValid(messages as Message[], tokens);
    const parsed =
      tokens !== undefined ? (messages as Message[]) : parseOrThrow(MESSAGES, messages, "messages");
    const issues = this.#settings.history.duplicateIssues(parsed);
    if (issues.length > 0) throw new ValidationError("messages", issues);
    if (parsed.length === 0) return { entry: undefined, result: undefined, events: [] };
    const exchanges = exchangeIssues(parsed, this.#settings.history.openToolUses());
    if (exchanges.length > 0) throw new ValidationError("messages", exchanges);
    return this.#messages(parsed, undefined);
  }

  /** A user message with `text`, opening a new turn; `pinned` pins it. */
  addUserText(text: string, options?: { pinned?: boolean }): Intake<UserMessage> {
    parseOrThrow(NON_EMPTY_TEXT, text, "text");
    const pinned = parsePinned(options);
    const { history, sessionId, clock } = this.#settings;
    const turnId = { owner: USER_TURN_OWNER, number: history.lastTurnNumber + 1 };
    const message = createMessage({
      role: "user",
      sessionId,
      turnId,
      content: [{ type: "text", text }],
      clock,
    });
    const open = history.openToolUses();
    if (open.unanswered.length === 0) {
      return this.#single(this.#messages([message], pinned ? [message.id] : undefined));
    }
    // The user went on while calls wait: they are closed as interrupted, before the new turn.
    const closing = open.unanswered.map(interruptedResult);
    const results = this.#results(open.results, closing);
    const intake = this.#messages(
      [results, message],
      pinned ? [message.id] : undefined,
      open.results !== undefined,
    );
    intake.events.push({
      type: "tool_calls_interrupted",
      toolUseIds: open.unanswered,
      messageId: results.id,
    });
    return { ...intake, result: message as UserMessage };
  }

  /** A pin of one of the user's own messages. @throws {ValidationError} for one that cannot be pinned. */
  pin(messageId: string): Intake<void> {
    const message = this.#settings.history.byId(messageId);
    const problem =
      message === undefined
        ? `no message ${JSON.stringify(messageId)} in this session`
        : message.role !== "user" || message.content.some((block) => block.type === "tool_result")
          ? "only a user message without tool results can be pinned"
          : undefined;
    if (problem !== undefined)
      throw new ValidationError("pin", [{ path: ["messageId"], message: problem }]);
    return { entry: { kind: "pins", messageIds: [messageId] }, result: undefined, events: [] };
  }

  /**
   * An assistant message in the current turn; its `tool_use` ids not those of calls still waiting. `id`:
   * the message's id (a provider response's, so the same response appended twice is refused).
   */
  addAssistant(content: ContentBlock[], options?: { id?: string }): Intake<AssistantMessage> {
    const blocks = parseOrThrow(ASSISTANT_CONTENT, content, "assistant content");
    const id = parseAssistantId(options);
    const issues = this.#settings.history
      .duplicateIssues([{ id: id ?? "", content: blocks }])
      .filter((issue) => id !== undefined || issue.path[1] !== "id")
      .map((issue) => ({ ...issue, path: issue.path[1] === "id" ? ["id"] : issue.path.slice(2) }));
    if (issues.length > 0) throw new ValidationError("assistant content", issues);
    this.#assertNoOpenCalls("addAssistant");
    const { sessionId, clock } = this.#settings;
    const turnId = this.#currentTurn("addAssistant");
    const message = createMessage({ role: "assistant", sessionId, turnId, content: blocks, clock });
    return this.#single(
      this.#messages([id === undefined ? message : { ...message, id }], undefined),
    );
  }

  /** Tool results answering the `tool_use` blocks of the last message, as one user message. */
  addToolResults(results: ToolResultInput[]): Intake<UserMessage> {
    const open = this.#settings.history.openToolUses();
    const blocks = toToolResultBlocks(results, new Set(open.unanswered));
    if (open.results === undefined)
      return this.#add("user", this.#currentTurn("addToolResults"), blocks, false);
    // More results for the same calls, nothing in between: one message of results.
    const merged = this.#results(open.results, blocks);
    return this.#single(this.#messages([merged], undefined, true));
  }

  /** A usage the model reported for the last request. */
  recordUsage(usage: Usage): Intake<void> {
    const parsed = parseOrThrow(UsageSchema, usage, "usage");
    return { entry: { kind: "usage", usage: parsed }, result: undefined, events: [] };
  }

  /** A mid-conversation `role: "system"` message, in the current turn, where the caller puts it. */
  addSystemMessage(text: string): Intake<Message> {
    parseOrThrow(NON_EMPTY_TEXT, text, "system message text");
    this.#assertNoOpenCalls("addSystemMessage");
    const block = {
      type: "opaque" as const,
      block: { type: SYSTEM_MESSAGE_BLOCK_TYPE, message: { role: "system", content: text } },
    };
    return this.#add("user", this.#currentTurn("addSystemMessage"), [block], false);
  }

  /** Compact summaries by tool use id; those stored already with the same text are left out. */
  storeCompactSummaries(
    summaries: ReadonlyMap<string, string> | Record<string, string>,
  ): Intake<void> {
    if (!(summaries instanceof Map) && !isPlainObject(summaries)) {
      throw new ValidationError("compact summaries", [
        { path: [], message: "must be a Map or a plain object of tool use id to summary" },
      ]);
    }
    const entries = summaries instanceof Map ? [...summaries] : Object.entries(summaries);
    const issues = summaryIssues(entries);
    if (issues.length > 0) throw new ValidationError("compact summaries", issues);
    const stored = this.#settings.history.summaries;
    const changed = entries.filter(([toolUseId, text]) => stored.get(toolUseId) !== text);
    const entry =
      changed.length === 0
        ? undefined
        : { kind: "summaries" as const, summaries: Object.fromEntries(changed) };
    return { entry, result: undefined, events: [] };
  }

  #currentTurn(method: string): TurnId {
    const last = this.#settings.history.last;
    if (last === undefined) {
      throw new ValidationError(method, [
        { path: ["messages"], message: "no turn is open: start one with addUserText first" },
      ]);
    }
    return last.turnId;
  }

  /** @throws {ValidationError} while calls of the last assistant message wait for results. */
  #assertNoOpenCalls(method: string): void {
    const { unanswered } = this.#settings.history.openToolUses();
    if (unanswered.length === 0) return;
    throw new ValidationError(method, [
      {
        path: ["messages"],
        message: `tool_use ${unanswered.join(", ")} of the last assistant message: no result yet; add results with addToolResults first (a user message closes calls as interrupted)`,
      },
    ]);
  }

  /** The message of results `previous` (or a new one in the current turn) with `blocks` after its results. */
  #results(previous: Message | undefined, blocks: ToolResultBlock[]): Message {
    if (previous === undefined) {
      const { sessionId, clock } = this.#settings;
      const turnId = this.#currentTurn("addToolResults");
      return createMessage({
        role: "user",
        sessionId,
        turnId,
        content: blocks,
        clock,
        generated: "notice",
      });
    }
    const results = previous.content.filter((block) => block.type === "tool_result");
    const rest = previous.content.filter((block) => block.type !== "tool_result");
    return { ...previous, content: [...results, ...blocks, ...rest] } as Message;
  }

  #add<R extends Message["role"]>(
    role: R,
    turnId: TurnId,
    content: ContentBlock[],
    pinned: boolean,
  ): Intake<Extract<Message, { role: R }>> {
    const { sessionId, clock } = this.#settings;
    const message = createMessage({ role, sessionId, turnId, content, clock } as never) as Message;
    return this.#single(this.#messages([message], pinned ? [message.id] : undefined));
  }

  /** The intake of one message, returning it. */
  #single<T extends Message>(intake: Intake<void>): Intake<T> {
    const messages = (intake.entry as { messages: Message[] }).messages;
    return { ...intake, result: messages.at(-1) as T };
  }

  /**
   * The entry of validated messages, each text too large for the window clamped to its head
   * and tail; the archive keeps the original under the handle its marker names (a
   * `content_clamped` event carries it too).
   */
  #messages(
    messages: readonly Message[],
    pinned: string[] | undefined,
    replacesLast = false,
  ): Intake<void> {
    const events: CompactionEvent[] = [];
    const archive: ArchiveRecord[] = [];
    const { archive: keeper, history, maxBlockShare, keepStaleThinking, clock } = this.#settings;
    // In the estimate's tokens, as clamping counts (the window divided by the meter's ratio).
    const maxBlockTokens = Math.floor(maxBlockShare * history.meter.planning.contextLimit);
    // Handles are taken in the order the blocks are cut, so the records follow that order too.
    let handles = 0;
    const nextHandle =
      keeper === undefined ? undefined : (keeper.clampNamer ?? (() => keeper.handleAt(handles++)));
    const built = messages.map((message) => {
      const clamped = clampMessage(message, maxBlockTokens, nextHandle);
      for (const block of clamped.clamped) {
        events.push({ type: "content_clamped", messageId: message.id, ...block });
        if (block.handle !== undefined) archive.push(clampRecord(block.handle, block, message));
      }
      return clamped.message;
    });
    const entry = {
      kind: "messages" as const,
      // Thinking after a text clamped here was made on the whole text (the model saw it uncut):
      // stale, as after any edit. Messages taken in later are made on the clamped text.
      messages:
        events.length === 0 || keepStaleThinking
          ? built
          : keepThinkingValid(messages, built, clock).conversation,
      ...(pinned ? { pinned } : {}),
      ...(replacesLast ? { replacesLast: true as const } : {}),
      ...(archive.length > 0 ? { archive } : {}),
    };
    return { entry, result: undefined, events };
  }
}
