import { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import {
  type AssistantMessage,
  type ContentBlock,
  type JsonObject,
  type Message,
  SYSTEM_MESSAGE_BLOCK_TYPE,
  type TurnId,
  type UserMessage,
} from "../core/message.js";
import { type Clock, createMessage } from "../core/message-factory.js";
import { rememberValid } from "../core/message-memo.js";
import { isPlainObject } from "../core/plain-object.js";
import { ContentBlockSchema, JsonObjectSchema, MessageSchema } from "../core/schemas.js";
import { clampMessage } from "./clamp.js";
import { type Usage, UsageSchema } from "./context-meter.js";
import type { CompactionEvent } from "./events.js";
import { type History, USER_TURN_OWNER } from "./history.js";
import { type ToolResultInput, toToolResultBlocks } from "./tool-results.js";

/** What the intake needs from its session. */
export interface MessageIntakeSettings {
  history: History;
  sessionId: string;
  clock: Clock;
  /** The largest text one block may hold, in tokens; longer ones are clamped. */
  maxBlockTokens: number;
  emit: (event: CompactionEvent) => void;
}

/**
 * Where data enters a session: messages, tool results, usage, summaries and pins are
 * validated here, once (clamped too), then trusted by everything behind.
 */
export class MessageIntake {
  readonly #settings: MessageIntakeSettings;

  constructor(settings: MessageIntakeSettings) {
    this.#settings = settings;
  }

  /** Appends messages as they are. All are validated first; none is added if one is bad. */
  append(...messages: Message[]): void {
    parseOrThrow(z.array(MessageSchema), messages, "messages");
    const issues = this.#settings.history.duplicateIssues(messages);
    if (issues.length > 0) throw new ValidationError("messages", issues);
    this.#push(messages);
  }

  /**
   * Appends a user message with `text`, opening a new turn. `pinned`: no compaction ever
   * changes or removes it (see {@link AgentSession.pin}).
   */
  addUserText(text: string, options: { pinned?: boolean } = {}): UserMessage {
    parseOrThrow(z.string().min(1, "must be a non-empty string"), text, "text");
    const turnId = { owner: USER_TURN_OWNER, number: this.#settings.history.lastTurnNumber + 1 };
    const message = this.#add("user", turnId, [{ type: "text", text }]);
    if (options.pinned === true) this.#settings.history.pinned.add(message.id);
    return message;
  }

  /**
   * Pins one of the user's own messages (no tool results in it): no compaction changes or
   * removes it, and after a summary it comes back right after the summary.
   * @throws {ValidationError} for an unknown id or a message that cannot be pinned.
   */
  pin(messageId: string): void {
    const message = this.#settings.history.messages.find((candidate) => candidate.id === messageId);
    const problem =
      message === undefined
        ? `no message "${messageId}" in this session`
        : message.role !== "user" || message.content.some((block) => block.type === "tool_result")
          ? "only a user message without tool results can be pinned"
          : undefined;
    if (problem !== undefined)
      throw new ValidationError("pin", [{ path: ["messageId"], message: problem }]);
    this.#settings.history.pinned.add(messageId);
  }

  /** Appends an assistant message to the current turn. */
  addAssistant(content: ContentBlock[]): AssistantMessage {
    const blocks = parseOrThrow(
      z.array(ContentBlockSchema).min(1, "must hold at least one block"),
      content,
      "assistant content",
    );
    const issues = this.#settings.history
      .duplicateIssues([{ id: "", content: blocks }])
      .map((issue) => ({ ...issue, path: issue.path.slice(2) }));
    if (issues.length > 0) throw new ValidationError("assistant content", issues);
    return this.#add("assistant", this.#currentTurn("addAssistant"), blocks);
  }

  /**
   * Appends tool results as one user message in the current turn, and stores each result's
   * `compactSummary` for later compaction. Takes the library's shape (`isError` optional) or
   * the Anthropic SDK's (`tool_use_id`, `is_error`); each must answer a `tool_use` of the
   * assistant message right before.
   */
  addToolResults(results: ToolResultInput[]): UserMessage {
    const blocks = toToolResultBlocks(results, this.#settings.history.pendingToolUseIds());
    const message = this.#add("user", this.#currentTurn("addToolResults"), blocks);
    for (const block of blocks) {
      if (block.compactSummary !== undefined)
        this.#settings.history.summaries.set(block.toolUseId, block.compactSummary);
    }
    return message;
  }

  /** Records the usage the model reported for the last request. */
  recordUsage(usage: Usage): void {
    const parsed = parseOrThrow(UsageSchema, usage, "usage");
    this.#settings.history.meter.recorded(parsed, this.#settings.history.messages);
  }

  /**
   * Reports what the API changed in the last request before the model read it (a response's
   * `input_transformations`, e.g. thinking dropped with `prefix_mismatch_behavior:
   * "drop_block"`) as an `input_transformations` event. `appendAnthropicResponse` calls it.
   */
  recordInputTransformations(transformations: readonly JsonObject[]): void {
    const parsed = parseOrThrow(
      z.array(JsonObjectSchema),
      transformations,
      "input_transformations",
    );
    if (parsed.length > 0)
      this.#settings.emit({ type: "input_transformations", transformations: parsed });
  }

  recordContextEdits(edits: readonly JsonObject[]): void {
    const parsed = parseOrThrow(z.array(JsonObjectSchema), edits, "applied_edits");
    if (parsed.length === 0) return;
    const clearedInputTokens = parsed.reduce(
      (sum, edit) =>
        sum + (typeof edit.cleared_input_tokens === "number" ? edit.cleared_input_tokens : 0),
      0,
    );
    this.#settings.emit({ type: "context_edits_applied", edits: parsed, clearedInputTokens });
  }

  recordCacheDiagnosis(reason: JsonObject | null): void {
    const parsed = parseOrThrow(JsonObjectSchema.nullable(), reason, "cache_miss_reason");
    this.#settings.emit({ type: "cache_diagnosis", reason: parsed });
  }

  /** A mid-conversation `role: "system"` message, in the current turn, where the caller puts it. */
  addSystemMessage(text: string): Message {
    parseOrThrow(z.string().min(1, "must be a non-empty string"), text, "system message text");
    const block = {
      type: "opaque" as const,
      block: { type: SYSTEM_MESSAGE_BLOCK_TYPE, message: { role: "system", content: text } },
    };
    return this.#add("user", this.#currentTurn("addSystemMessage"), [block]);
  }

  /** Stores compact summaries of tool results, by tool use id. */
  storeCompactSummaries(summaries: ReadonlyMap<string, string> | Record<string, string>): void {
    if (!(summaries instanceof Map) && !isPlainObject(summaries)) {
      throw new ValidationError("compact summaries", [
        { path: [], message: "must be a Map or a plain object of tool use id to summary" },
      ]);
    }
    const entries = summaries instanceof Map ? [...summaries] : Object.entries(summaries);
    const parsed = parseOrThrow(
      z.array(z.tuple([z.string().min(1, "must be a non-empty tool use id"), z.string()])),
      entries,
      "compact summaries",
    );
    for (const [toolUseId, summary] of parsed)
      this.#settings.history.summaries.set(toolUseId, summary);
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

  #add<R extends Message["role"]>(
    role: R,
    turnId: TurnId,
    content: ContentBlock[],
  ): Extract<Message, { role: R }> {
    const options = {
      role,
      sessionId: this.#settings.sessionId,
      turnId,
      content,
      clock: this.#settings.clock,
    };
    const [message] = this.#push([createMessage(options as never)]);
    return message as Extract<Message, { role: R }>;
  }

  /**
   * Appends validated messages, each text too large for the window clamped to its head and
   * tail (reported in a `content_clamped` event with the original).
   */
  #push(messages: readonly Message[]): Message[] {
    const clamped = messages.map((message) => clampMessage(message, this.#settings.maxBlockTokens));
    const appended = clamped.map((entry) => entry.message);
    rememberValid(appended);
    this.#settings.history.push(appended);
    for (const { message, clamped: blocks } of clamped) {
      for (const block of blocks)
        this.#settings.emit({ type: "content_clamped", messageId: message.id, ...block });
    }
    return appended;
  }
}
