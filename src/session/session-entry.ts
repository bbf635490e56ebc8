import type { Message } from "../core/message.js";
import type { ArchiveRecord } from "./archive.js";
import type { Usage } from "./context-meter.js";
import type { CompactionEvent } from "./events.js";

/**
 * One change a session takes in, built by the intake (validated, clamped, ids and turns
 * assigned) and applied by the core: the unit a stored session persists between the two, and
 * replays from its log.
 */
export type SessionEntry =
  | {
      kind: "messages";
      messages: Message[];
      pinned?: string[];
      /** The first message takes the place of the last one (more results for the same calls). */
      replacesLast?: true;
      /** What clamping cut, kept under the handles its markers name. */
      archive?: ArchiveRecord[];
    }
  | { kind: "pins"; messageIds: string[] }
  | { kind: "usage"; usage: Usage }
  | { kind: "summaries"; summaries: Record<string, string> };

/**
 * What the intake built for one call: the entry (`undefined` when there is nothing to write),
 * the value the call returns, and the events applying it emits.
 */
export interface Intake<T> {
  entry: SessionEntry | undefined;
  result: T;
  events: CompactionEvent[];
}
