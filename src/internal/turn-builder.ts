import type { ContentBlock, Message, TurnId } from "../core/message.js";
import { type Clock, newId, systemClock } from "../core/message-factory.js";
import { messageOf, turnIdOf } from "../core/message-shapes.js";
import { isSummaryText, leadsSummary, splitSummary } from "../core/summary-format.js";
import { SUMMARY_TURN_ID } from "../core/turn.js";

/** What a provider converter takes to build messages: `{ sessionId?, firstTurnNumber?, clock? }`. */
export interface TurnBuilderOptions {
  sessionId?: string;
  firstTurnNumber?: number;
  clock?: Clock;
  /**
   * What each id starts with, before the message's position: `""` for a one-call helper's
   * messages, which live for the call only and must be named the same at each call (a clamp's
   * notice names its message). @default a new uuid v7 and a hyphen
   */
  idPrefix?: string;
  /** Makes each message id, in place of `idPrefix` and the position (the Anthropic adapter's `generateId`). */
  messageId?: (() => string) | undefined;
}

/**
 * Builds a provider conversion's messages in order and numbers their turns as the session
 * does: a user message opens a turn (one holding a summary joins the summary's turn), a system
 * message sits in the current turn (or the one the next user message opens), everything else
 * joins the current turn. Ids are one uuid v7 per conversion (or `idPrefix`) and the message's
 * position.
 */
export class TurnBuilder {
  readonly messages: Message[] = [];
  readonly #sessionId: string;
  readonly #createdAt: Date;
  readonly #prefix: string;
  readonly #messageId: (() => string) | undefined;
  #turnNumber: number;
  #current: TurnId | undefined;
  #opened = false;

  constructor(options: TurnBuilderOptions) {
    this.#sessionId = options.sessionId ?? newId();
    this.#createdAt = (options.clock ?? systemClock)();
    this.#messageId = options.messageId;
    this.#prefix = options.messageId !== undefined ? "" : (options.idPrefix ?? `${newId()}-`);
    this.#turnNumber = (options.firstTurnNumber ?? 1) - 1;
  }

  /** A system message: in the current turn, or in the one the next user message opens. */
  addSystem(content: ContentBlock[]): void {
    this.#push("user", this.#current ?? turnIdOf("u", this.#turnNumber + 1), content);
  }

  /**
   * A user message: opens a turn, or is the summary's (a summary or the last resort's notice,
   * and what a writer joined to it opening a turn of its own). The summary's turn holds it
   * alone: what follows opens a turn.
   */
  addUser(content: ContentBlock[]): void {
    // The library writes its summaries and notices only before the first turn it opens.
    if (!this.#opened && isSummaryText(content[0])) {
      const { library, rest } = leadsSummary(content[0])
        ? splitSummary(content)
        : { library: [content], rest: [] };
      for (const blocks of library) this.#push("user", { ...SUMMARY_TURN_ID }, blocks);
      this.#current = undefined;
      if (rest.length > 0) this.#push("user", this.#openTurn(), rest);
    } else this.#push("user", this.#openTurn(), content);
  }

  /** A message of the model's side (or the tools') in the current turn, opening one if none is. */
  addInTurn(role: Message["role"], content: ContentBlock[]): void {
    this.#push(role, this.#current ?? this.#openTurn(), content);
  }

  /** Whether a turn is open: a message {@link addInTurn} takes then joins it rather than opening one. */
  get inTurn(): boolean {
    return this.#current !== undefined;
  }

  /** What stands for compacted messages: the summary's turn at the start, in place elsewhere. */
  addCompacted(role: Message["role"], content: ContentBlock[]): void {
    if (this.messages.length > 0) this.addInTurn(role, content);
    else this.addSummary(role, content);
  }

  /** A message of the summary's turn (an API's compaction block leading it): what follows opens a turn. */
  addSummary(role: Message["role"], content: ContentBlock[]): void {
    this.#push(role, { ...SUMMARY_TURN_ID }, content);
    this.#current = undefined;
  }

  /** The number of the last turn opened (or the one before the first): a system message may take the next. */
  get lastTurnNumber(): number {
    return this.#turnNumber;
  }

  #openTurn(): TurnId {
    this.#opened = true;
    this.#turnNumber += 1;
    this.#current = turnIdOf("u", this.#turnNumber);
    return this.#current;
  }

  #push(role: Message["role"], turnId: TurnId, content: ContentBlock[]): void {
    // The messages of one turn share its id object, as the AI SDK's conversion's do.
    this.messages.push(
      messageOf(
        role,
        this.#messageId === undefined ? this.#prefix + this.messages.length : this.#messageId(),
        this.#sessionId,
        turnId,
        this.#createdAt,
        content,
      ),
    );
  }
}
