import * as z from "zod/mini";
import { parseOrThrow } from "../core/errors.js";
import { POSITIVE_INT_SCHEMA } from "../core/option-schemas.js";
import {
  REMEMBERED_CONVERSATIONS,
  RecentHistories,
  type Remembered,
} from "../internal/recent-histories.js";

/** Options of {@link CompactionMemory}. */
export interface CompactionMemoryOptions {
  /** How many conversations it remembers for each helper (the latest ones compacted). @default 16 */
  conversations?: number;
}

const OptionsSchema = z.strictObject({
  conversations: z.exactOptional(POSITIVE_INT_SCHEMA),
}) as unknown as z.ZodMiniType<CompactionMemoryOptions>;

/** Reads a memory's histories for a helper ({@link historiesOf}); set by the class. */
let histories: (memory: CompactionMemory, entry: string) => RecentHistories<Remembered>;

/**
 * What the one-call helpers sent for the conversations they compacted, for a server whose
 * clients send the whole history with each request. Given as their `memory` option, a call
 * whose messages continue a conversation compacted before (they start with the messages that
 * call was given, compared by value against copies it keeps, so a body parsed anew still finds
 * it and a message changed in place since does not) goes on from what that call sent: the
 * compacted history, then the messages added since. A call that changes or drops only the
 * last messages, those that went as they came (an edited latest request sent again), goes on
 * from what was sent up to them. Requests then grow append-only between compactions, as a
 * session's do, so the prompt cache stays warm, thinking signed over what was sent stays
 * valid, and the last response's usage measures the request. Without it each request is
 * compacted from the whole history anew, and what it sends first changes as the history grows.
 * Make one per process (or per tenant) and pass it to every call; it holds the latest
 * `conversations` of each helper, copies of the caller's messages (each copied once). The
 * messages a call hands back are what the next one goes on from: change a copy of them.
 *
 * @example
 * import { compactAnthropicMessages } from "agent-compaction/anthropic";
 * import { CompactionMemory } from "agent-compaction/store";
 *
 * const memory = new CompactionMemory();
 * // in the request handler, `history` the whole conversation the client sent:
 * const { messages } = await compactAnthropicMessages(history, { contextLimit, memory });
 * @throws {ValidationError} when an option is invalid.
 */
export class CompactionMemory {
  readonly #size: number;
  /** Each helper's histories, by its name. */
  readonly #byEntry = new Map<string, RecentHistories<Remembered>>();

  static {
    histories = (memory, entry) => {
      let found = memory.#byEntry.get(entry);
      if (found === undefined) {
        found = new RecentHistories(memory.#size);
        memory.#byEntry.set(entry, found);
      }
      return found;
    };
  }

  constructor(options: CompactionMemoryOptions = {}) {
    this.#size =
      parseOrThrow(OptionsSchema, options, "CompactionMemory options").conversations ??
      REMEMBERED_CONVERSATIONS;
  }

  /** Forgets every conversation. */
  clear(): void {
    this.#byEntry.clear();
  }
}

/**
 * The histories `memory` holds for the helper `entry` (its name: each helper remembers its own
 * kind of history, `H`).
 */
export function historiesOf<H extends Remembered>(
  memory: CompactionMemory,
  entry: string,
): RecentHistories<H> {
  return histories(memory, entry) as RecentHistories<H>;
}
