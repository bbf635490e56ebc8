import {
  compactAnthropicMessages,
  fromAnthropicMessages,
  toAnthropicMessages,
} from "../src/anthropic/index.js";
import { isCompactionResultEmpty } from "../src/core/compactor.js";
import type { Message } from "../src/core/message.js";
import type { CompactionMemory } from "../src/store/index.js";

/** What the real-runs part drives, as an agent loop drives a session. */
export interface ReplayedLoop {
  readonly sessionId: string;
  /** What the model is sent next (the request last made, and the messages added since). */
  readonly messages: readonly Message[];
  append(message: Message): void;
  maybeCompact(): Promise<{ compacted: boolean; error?: unknown }>;
  recordUsage(usage: { inputTokens: number; outputTokens: number }): void;
}

/**
 * A stateless server, as the real-runs part replays it: its client keeps the whole,
 * uncompacted history and sends it with each request, and the server compacts it with
 * `compactAnthropicMessages` (with a `CompactionMemory`, or without) before sending it on.
 * `compacted` says whether the call's compactors changed anything (with a memory, a request
 * that only goes on from what was sent is not a compaction).
 */
export class StatelessServer implements ReplayedLoop {
  readonly sessionId = "stateless";
  readonly #contextLimit: number;
  readonly #memory: CompactionMemory | undefined;
  readonly #clock: () => Date;
  /** The client's history. */
  readonly #history: Message[] = [];
  #sent: Message[] = [];

  constructor(contextLimit: number, clock: () => Date, memory?: CompactionMemory) {
    this.#contextLimit = contextLimit;
    this.#clock = clock;
    this.#memory = memory;
  }

  get messages(): readonly Message[] {
    return this.#sent;
  }

  append(message: Message): void {
    this.#history.push(message);
    this.#sent.push(message);
  }

  async maybeCompact(): Promise<{ compacted: boolean; error?: unknown }> {
    const { messages, compacted, result, error } = await compactAnthropicMessages(
      toAnthropicMessages(this.#history),
      {
        contextLimit: this.#contextLimit,
        ...(this.#memory === undefined ? {} : { memory: this.#memory }),
      },
    );
    this.#sent = compacted
      ? fromAnthropicMessages(messages, { sessionId: this.sessionId, clock: this.#clock })
      : [...this.#history];
    return { compacted: !isCompactionResultEmpty(result), error };
  }

  /** A stateless server is told no usage here: the helper measures by its estimate. */
  recordUsage(): void {}
}
