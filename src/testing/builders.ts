import type {
  AssistantMessage,
  ContentBlock,
  JsonObject,
  Message,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
  TurnId,
  UserMessage,
} from "../core/message.js";

/** A text block. */
export function textBlock(text: string): TextBlock {
  return { type: "text", text };
}

/** A tool use block. */
export function toolUseBlock(id: string, name: string, input: JsonObject = {}): ToolUseBlock {
  return { type: "tool_use", id, name, input };
}

/** A tool result block. */
export function toolResultBlock(
  toolUseId: string,
  content: ToolResultBlock["content"],
  options: { isError?: boolean; compactSummary?: string } = {},
): ToolResultBlock {
  return {
    type: "tool_result",
    toolUseId,
    content,
    isError: options.isError ?? false,
    ...(options.compactSummary === undefined ? {} : { compactSummary: options.compactSummary }),
  };
}

/** One tool call for {@link ConversationBuilder.toolCalls}. */
export interface ToolCallSpec {
  name: string;
  input?: JsonObject;
  /** What the tool returned. */
  result: ToolResultBlock["content"];
  isError?: boolean;
  compactSummary?: string;
  /** @default a generated `toolu_N` */
  id?: string;
}

/** Options of {@link ConversationBuilder}. */
export interface ConversationBuilderOptions {
  /** @default "session-test" */
  sessionId?: string;
  /** Time of the first message; each next one is a second later. @default 2026-01-01T00:00:00Z */
  startAt?: Date;
  /** Prefix of generated message ids. @default "msg" */
  idPrefix?: string;
}

/**
 * Builds deterministic conversations for tests: ids `msg-1…`, tool ids `toolu_1…`, one
 * second between messages, a new turn `u1, u2, …` at each `user()`.
 *
 * @example
 * const messages = new ConversationBuilder()
 *   .user("List the files")
 *   .toolCall({ name: "ls", result: "a.ts b.ts", compactSummary: "2 files" })
 *   .assistant("There are two files.")
 *   .build();
 */
export class ConversationBuilder {
  readonly #messages: Message[] = [];
  readonly #sessionId: string;
  readonly #idPrefix: string;
  readonly #startAt: number;
  #turn: TurnId | undefined;
  #turnNumber = 0;
  #toolCount = 0;

  constructor(options: ConversationBuilderOptions = {}) {
    this.#sessionId = options.sessionId ?? "session-test";
    this.#idPrefix = options.idPrefix ?? "msg";
    this.#startAt = (options.startAt ?? new Date("2026-01-01T00:00:00Z")).getTime();
  }

  /** Opens a new turn with a user message. */
  user(content: string | ContentBlock[]): this {
    this.#turnNumber += 1;
    this.#turn = { owner: "u", number: this.#turnNumber };
    return this.#push("user", typeof content === "string" ? [textBlock(content)] : content);
  }

  /** Continues the current turn with an assistant message. */
  assistant(content: string | ContentBlock[]): this {
    return this.#push("assistant", typeof content === "string" ? [textBlock(content)] : content);
  }

  /** Continues the current turn with a user message of tool results. */
  toolResults(results: ToolResultBlock[]): this {
    return this.#push("user", results);
  }

  /** One tool call: an assistant `tool_use` and the user's `tool_result`. */
  toolCall(call: ToolCallSpec, options: { text?: string } = {}): this {
    return this.toolCalls([call], options);
  }

  /** Parallel tool calls: one assistant message with every `tool_use`, one user message with every result. */
  toolCalls(calls: ToolCallSpec[], options: { text?: string } = {}): this {
    const uses = calls.map((call) =>
      toolUseBlock(call.id ?? this.nextToolId(), call.name, call.input ?? {}),
    );
    this.assistant([...(options.text === undefined ? [] : [textBlock(options.text)]), ...uses]);
    return this.toolResults(
      calls.map((call, index) =>
        toolResultBlock(uses[index]!.id, call.result, {
          ...(call.isError === undefined ? {} : { isError: call.isError }),
          ...(call.compactSummary === undefined ? {} : { compactSummary: call.compactSummary }),
        }),
      ),
    );
  }

  /** Sets the turn id of the following messages (for irregular, hand-numbered turns). */
  inTurn(turnId: TurnId): this {
    this.#turn = { owner: turnId.owner, number: turnId.number };
    return this;
  }

  /** Appends a message as it is. */
  message(message: Message): this {
    this.#messages.push(message);
    return this;
  }

  /** The next generated tool use id. */
  nextToolId(): string {
    this.#toolCount += 1;
    return `toolu_${this.#toolCount}`;
  }

  /** The messages built so far (a new array each call). */
  build(): Message[] {
    return [...this.#messages];
  }

  #push(role: "user" | "assistant", content: ContentBlock[]): this {
    if (this.#turn === undefined)
      throw new Error("ConversationBuilder: call user() before other messages");
    const index = this.#messages.length;
    const message = {
      role,
      id: `${this.#idPrefix}-${index + 1}`,
      sessionId: this.#sessionId,
      turnId: { ...this.#turn },
      createdAt: new Date(this.#startAt + index * 1000),
      content,
    } as UserMessage | AssistantMessage;
    this.#messages.push(message);
    return this;
  }
}
