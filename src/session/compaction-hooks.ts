import type { Logger } from "./events.js";
import { HookScope } from "./hook-scope.js";
import type {
  AfterCompactHook,
  BeforeCompactContext,
  BeforeCompactDecision,
  BeforeCompactHook,
  CompactionBoundary,
} from "./hooks.js";

/**
 * Calls the session's `beforeCompact` and `afterCompact` hooks. A hook that throws is logged
 * and ignored. The session refuses compactions started from a running `beforeCompact`
 * (`inHook`, see {@link HookScope}): they would wait for the compaction that waits for the hook.
 */
export class CompactionHooks {
  /**
   * The `beforeCompact` hook, run inside this session's scope: where a compaction from it is
   * refused. A stored session hands it to the sessions its compactions run in.
   */
  readonly scopedBefore: BeforeCompactHook | undefined;
  readonly #after: AfterCompactHook | undefined;
  readonly #logger: Logger | undefined;
  readonly #scope = new HookScope();

  constructor(
    before: BeforeCompactHook | undefined,
    after: AfterCompactHook | undefined,
    logger: Logger | undefined,
  ) {
    this.scopedBefore =
      before === undefined ? undefined : (context) => this.#scope.run(async () => before(context));
    this.#after = after;
    this.#logger = logger;
  }

  /** Whether the caller runs inside a `beforeCompact` hook of this session. */
  get inHook(): boolean {
    return this.#scope.active;
  }

  /**
   * Asks `beforeCompact` about one compactor's run: a veto, and the instructions for the
   * summarizer (the caller's first, then the hook's).
   */
  async before(
    context: Omit<BeforeCompactContext, "instructions">,
    instructions: string | undefined,
  ): Promise<BeforeCompactDecision> {
    const before = this.scopedBefore;
    if (before === undefined) return instructions === undefined ? {} : { instructions };
    let decision: BeforeCompactDecision | undefined;
    try {
      decision = await before({
        ...context,
        ...(instructions === undefined ? {} : { instructions }),
      });
    } catch (error) {
      this.#logger?.warn("agent-compaction: the beforeCompact hook threw", { error });
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
