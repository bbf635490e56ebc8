import type { Clock } from "../core/message-factory.js";
import { AgentSession } from "../session/agent-session.js";
import type { CompactionEvent } from "../session/events.js";
import type { SessionView } from "./session-view.js";

/** A helper used this many times is rebuilt (it holds every message it made). */
const MAX_USES = 256;

/**
 * The session a stored session's writes build their messages on, so that `addUserText`,
 * `addAssistant` and `addToolResults` assign turns and check tool results exactly as
 * `AgentSession` does: one holding the conversation's last message and last turn number.
 * Rebuilt whenever the copy moved in a way the helper did not see (another worker's record,
 * a new head); kept across one worker's own writes, so a lone writer builds it once.
 */
export class MessageHelper {
  readonly #options: { clock?: Clock; maxBlockShare?: number };
  #current:
    | {
        session: AgentSession;
        tail: number;
        version: number;
        lastId: string | undefined;
        uses: number;
      }
    | undefined;
  /** The events the helper emitted for the write being built (`content_clamped`). */
  events: CompactionEvent[] = [];

  constructor(options: { clock?: Clock; maxBlockShare?: number }) {
    this.#options = options;
  }

  /** The helper for the conversation as `view` has it. */
  for(view: SessionView): AgentSession {
    this.events = [];
    const current = this.#current;
    if (
      current !== undefined &&
      current.tail === view.tail &&
      current.version === view.version &&
      current.lastId === view.lastMessageId &&
      current.uses < MAX_USES
    ) {
      current.uses += 1;
      return current.session;
    }
    const { clock, maxBlockShare } = this.#options;
    const session = AgentSession.fromJSON(view.helperSnapshot(), {
      compactor: false,
      ...(clock === undefined ? {} : { clock }),
      ...(maxBlockShare === undefined ? {} : { maxBlockShare }),
      onEvent: (event) => this.events.push(event),
    });
    this.#current = {
      session,
      tail: view.tail,
      version: view.version,
      lastId: view.lastMessageId,
      uses: 0,
    };
    return session;
  }

  /** After `view` applied the record the helper's last write built: the helper matches it again. */
  committed(view: SessionView, helper: AgentSession): void {
    if (this.#current?.session !== helper) return;
    if (helper.messages.at(-1)?.id !== view.lastMessageId) {
      this.#current = undefined;
      return;
    }
    this.#current.tail = view.tail;
    this.#current.version = view.version;
    this.#current.lastId = view.lastMessageId;
  }

  /** Forgets the helper (a write it built failed). */
  reset(): void {
    this.#current = undefined;
  }
}
