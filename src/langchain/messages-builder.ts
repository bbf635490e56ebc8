import type {
  ContentBlock,
  GeneratedKind,
  Message,
  ToolResultBlock,
  TurnId,
} from "../core/message.js";
import { newId, systemClock } from "../core/message-factory.js";
import { listOf } from "../core/message-shapes.js";
import { isWholeSummaryText } from "../core/summary-format.js";
import {
  estimateBlockTokens,
  estimateContentTokens,
  MESSAGE_OVERHEAD_TOKENS,
} from "../core/tokens.js";
import { TurnTracker } from "../core/turn-tracker.js";
import { spreadWith } from "../internal/plain-object.js";
import { fail, type ReadContext } from "./blocks-in.js";
import type { ConversionSettings, Kind } from "./messages-in.js";

type Record_ = Record<string, unknown>;

/** Builds our messages from LangChain's in order: tool messages in a row join one message of results. */
export class MessagesBuilder {
  readonly messages: Message[] = [];
  readonly #sessionId: string;
  readonly #createdAt: Date;
  readonly #prefix: string;
  readonly #turns: TurnTracker;
  readonly #ids = new Set<string>();
  /** The message of results the next tool message joins. */
  #results: ToolResultBlock[] | undefined;
  /** For each message built, the index of the LangChain message it starts at. */
  readonly starts: number[] = [];
  /** The local estimate of the messages built (`estimateTokens`), counted as each is built. */
  tokens = 0;

  constructor(settings: ConversionSettings) {
    this.#sessionId = settings.sessionId ?? newId();
    this.#createdAt = (settings.clock ?? systemClock)();
    this.#prefix = newId();
    this.#turns = new TurnTracker(settings.firstTurnNumber ?? 1, settings.after);
  }

  /** Whether the id {@link id} gave last was made here (the message had none). */
  madeId = false;

  /** The id of a message: LangChain's, or a new one ({@link madeId}) marked so it does not go back. */
  id(context: ReadContext, value: Record_, index: number): string {
    const given = value["id"];
    if (given !== undefined && (typeof given !== "string" || given === ""))
      fail(context, "id", "must be a non-empty string");
    // A new id is unique already: its prefix is a new uuid, no given id can hold it.
    this.madeId = typeof given !== "string" || given === "";
    if (this.madeId) return `${this.#prefix}-${index}`;
    if (this.#ids.has(given as string)) fail(context, "id", "must be unique in the conversation");
    this.#ids.add(given as string);
    return given as string;
  }

  result(block: ToolResultBlock, id: string, index: number): void {
    this.tokens += estimateBlockTokens(block);
    if (this.#results !== undefined) {
      this.#results.push(block);
      return;
    }
    this.tokens += MESSAGE_OVERHEAD_TOKENS;
    this.#results = listOf(block);
    this.starts.push(index);
    this.#push("user", this.#turns.current(), this.#results, id, undefined);
  }

  add(
    kind: Exclude<Kind, "tool">,
    blocks: ContentBlock[],
    id: string,
    index: number,
    generated?: GeneratedKind,
  ): void {
    this.#results = undefined;
    this.tokens += estimateContentTokens(blocks);
    this.starts.push(index);
    let turn: TurnId;
    if (kind === "system") turn = this.#turns.pending();
    else if (kind === "ai") turn = this.#turns.current();
    else
      turn =
        generated === "summary" || (!this.#turns.opened && isWholeSummaryText(blocks[0]))
          ? this.#turns.summary()
          : this.#turns.open();
    this.#push(kind === "ai" ? "assistant" : "user", turn, blocks, id, generated);
  }

  #push(
    role: Message["role"],
    turnId: TurnId,
    content: ContentBlock[],
    id: string,
    generated: GeneratedKind | undefined,
  ): void {
    // A literal, not `messageOf` (core/message-shapes.ts): measured, shaped ones made both the
    // session's intake (70x to 99x pruneMessages at 10k messages) and the one-call helper (a
    // third slower or more) slower; not understood.
    const message = {
      role,
      id,
      sessionId: this.#sessionId,
      turnId,
      createdAt: this.#createdAt,
      content,
    };
    this.messages.push(
      (generated === undefined ? message : spreadWith(message, { generated })) as Message,
    );
  }
}
