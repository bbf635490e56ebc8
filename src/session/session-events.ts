import type { ConfiguredWindowProblem } from "../models/model-limits.js";
import type {
  CompactionEvent,
  CompactionEventListener,
  ContextWindowWarningEvent,
  Logger,
} from "./events.js";

/** A problem with the session's window (a `context_window_warning`). */
export type WindowProblem = ContextWindowWarningEvent["problem"];

/**
 * Where a session's events go: its listeners (`onEvent`, and each `on`), told in order, a
 * listener that throws logged and passed over; and the window problems, each kind reported
 * once (an event and a logger warning).
 */
export class SessionEvents {
  readonly #listeners = new Set<CompactionEventListener>();
  readonly #logger: Logger | undefined;
  /** The window problems reported so far (each kind once). */
  readonly #windowWarnings = new Set<string>();
  /**
   * The warning about the configured window, found when the session was made: only `onEvent`
   * could hear it then, so each listener subscribed later with `on` is told it when it subscribes.
   */
  #configuredWindowWarning: CompactionEvent | undefined;

  constructor(logger: Logger | undefined, onEvent: CompactionEventListener | undefined) {
    this.#logger = logger;
    if (onEvent !== undefined) this.#listeners.add(onEvent);
  }

  /**
   * Subscribes to events; returns the unsubscribe function. A warning about the configured
   * window (found before any listener but `onEvent`) reaches it at once.
   */
  on(listener: CompactionEventListener): () => void {
    this.#listeners.add(listener);
    if (this.#configuredWindowWarning !== undefined)
      this.#tell(listener, this.#configuredWindowWarning);
    return () => this.#listeners.delete(listener);
  }

  emit(event: CompactionEvent): void {
    for (const listener of this.#listeners) this.#tell(listener, event);
  }

  /** Reports a window problem once per kind: an event and a logger warning. */
  warnWindow(problem: WindowProblem | undefined): void {
    if (problem === undefined || this.#windowWarnings.has(problem.kind)) return;
    this.#windowWarnings.add(problem.kind);
    this.warnWindowAgain(problem);
  }

  /** Reports a window problem each time it happens (a refusal naming a smaller window). */
  warnWindowAgain(problem: WindowProblem): void {
    this.#logger?.warn(`agent-compaction: ${problem.message}`, { problem });
    this.emit({ type: "context_window_warning", problem });
  }

  /** Reports the configured window's problem, and keeps it for the listeners that come later. */
  warnConfiguredWindow(problem: ConfiguredWindowProblem | undefined): void {
    this.warnWindow(problem);
    if (problem !== undefined)
      this.#configuredWindowWarning = { type: "context_window_warning", problem };
  }

  /** Logs what cannot go through events (`message` names it). */
  log(message: string, details: Record<string, unknown>): void {
    this.#logger?.warn(`agent-compaction: ${message}`, details);
  }

  #tell(listener: CompactionEventListener, event: CompactionEvent): void {
    try {
      listener(event);
    } catch (error) {
      this.#logger?.warn("agent-compaction: an event listener threw", {
        event: event.type,
        error,
      });
    }
  }
}
