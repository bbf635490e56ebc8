import type { Logger } from "./events.js";
import type {
  AfterCompactHook,
  BeforeCompactContext,
  BeforeCompactDecision,
  BeforeCompactHook,
  CompactionBoundary,
} from "./hooks.js";

/**
 * Calls the session's `beforeCompact` and `afterCompact` hooks. A hook that throws is logged
 * and ignored. While `beforeCompact` runs, the session refuses new compactions (`inHook`): one
 * started from the hook would wait for the compaction that waits for the hook.
 */
export class CompactionHooks {
  readonly #before: BeforeCompactHook | undefined;
  readonly #after: AfterCompactHook | undefined;
  readonly #logger: Logger | undefined;
  #depth = 0;

  constructor(
    before: BeforeCompactHook | undefined,
    after: AfterCompactHook | undefined,
    logger: Logger | undefined,
  ) {
    this.#before = before;
    this.#after = after;
    this.#logger = logger;
  }

  /** Whether a `beforeCompact` hook is running. */
  get inHook(): boolean {
    return this.#depth > 0;
  }

  /**
   * Asks `beforeCompact` about one compactor's run: a veto, and the instructions for the
   * summarizer (the caller's first, then the hook's).
   */
  async before(
    context: Omit<BeforeCompactContext, "instructions">,
    instructions: string | undefined,
  ): Promise<BeforeCompactDecision> {
    if (this.#before === undefined) return instructions === undefined ? {} : { instructions };
    let decision: BeforeCompactDecision | undefined;
    this.#depth += 1;
    try {
      decision = await this.#before({
        ...context,
        ...(instructions === undefined ? {} : { instructions }),
      });
    } catch (error) {
      this.#logger?.warn("agent-compaction: the beforeCompact hook threw", { error });
    } finally {
      this.#depth -= 1;
    }
    const added =
      typeof decision?.instructions === "string" && decision.instructions.trim() !== ""
        ? decision.instructions
        : undefined;
    const combined = [instructions, added].filter((part) => part !== undefined).join("\n\n");
    return {
      ...(decision?.veto === true ? { veto: true } : {}),
      ...(combined === "" ? {} : { instructions: combined }),
    };
  }

  /** Calls `afterCompact` with each boundary; run once the compaction released the session. */
  async after(boundaries: readonly CompactionBoundary[]): Promise<void> {
    if (this.#after === undefined) return;
    for (const boundary of boundaries) {
      try {
        await this.#after(boundary);
      } catch (error) {
        this.#logger?.warn("agent-compaction: the afterCompact hook threw", { error });
      }
    }
  }
}
