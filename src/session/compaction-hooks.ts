import { requestWithin } from "../core/abort.js";
import { CompactionError } from "../core/errors.js";
import type { Logger } from "./events.js";
import { HookScope } from "./hook-scope.js";
import type {
  AfterCompactHook,
  BeforeCompactContext,
  BeforeCompactDecision,
  BeforeCompactHook,
  CompactionBoundary,
} from "./hooks.js";

/** The hooks of a session's options, and where what they throw is reported. */
export interface CompactionHookOptions {
  beforeCompact?: BeforeCompactHook | undefined;
  afterCompact?: AfterCompactHook | undefined;
  logger?: Logger | undefined;
}

/**
 * Calls the session's `beforeCompact` and `afterCompact` hooks, each within `timeoutMs`. A hook
 * that throws is logged and ignored; a `beforeCompact` hook that does not settle in time (or
 * outlives the caller's signal) ends the compaction as a `CompactionError` (`timeout`,
 * `aborted`), an `afterCompact` one is logged and left behind. The session refuses compactions
 * started from a running `beforeCompact` (`inHook`, see {@link HookScope}): they would wait for
 * the compaction that waits for the hook.
 */
export class CompactionHooks {
  readonly #before: BeforeCompactHook | undefined;
  readonly #after: AfterCompactHook | undefined;
  readonly #logger: Logger | undefined;
  readonly #timeoutMs: number;
  readonly #scope = new HookScope();

  constructor(hooks: CompactionHookOptions, timeoutMs: number) {
    this.#before = hooks.beforeCompact;
    this.#after = hooks.afterCompact;
    this.#logger = hooks.logger;
    this.#timeoutMs = timeoutMs;
  }

  /** Whether the caller runs inside a `beforeCompact` hook of this session. */
  get inHook(): boolean {
    return this.#scope.active;
  }

  /**
   * Asks `beforeCompact` about one compactor's run: a veto, and the instructions for the
   * summarizer (the caller's first, then the hook's).
   * @throws {CompactionError} `timeout` or `aborted` when the hook outlives its time or `signal`.
   */
  async before(
    context: Omit<BeforeCompactContext, "instructions">,
    instructions: string | undefined,
    signal?: AbortSignal,
  ): Promise<BeforeCompactDecision> {
    const before = this.#before;
    if (before === undefined) return instructions === undefined ? {} : { instructions };
    const decision = await this.#within("beforeCompact", signal, (left) =>
      // Inside this session's scope, where a compaction it starts is refused.
      this.#scope.run(
        async () => before({ ...context, ...(instructions === undefined ? {} : { instructions }) }),
        left,
      ),
    );
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
    const after = this.#after;
    if (after === undefined) return;
    for (const boundary of boundaries) {
      try {
        await this.#within("afterCompact", undefined, () => after(boundary));
      } catch (error) {
        this.#logger?.warn("agent-compaction: the afterCompact hook did not settle in time", {
          error,
        });
      }
    }
  }

  /**
   * Runs a hook within the time limit and `signal`: its value, `undefined` when it threw (logged).
   * `left` settles when the session stops waiting for it (it may run on, abandoned).
   * @throws {CompactionError} `timeout` or `aborted`.
   */
  async #within<T>(
    name: string,
    signal: AbortSignal | undefined,
    hook: (left: Promise<void>) => T | PromiseLike<T>,
  ): Promise<T | undefined> {
    let leave = () => {};
    const left = new Promise<void>((resolve) => {
      leave = resolve;
    });
    const guarded = async (): Promise<T | undefined> => {
      try {
        return await hook(left);
      } catch (error) {
        this.#logger?.warn(`agent-compaction: the ${name} hook threw`, { error });
        return undefined;
      }
    };
    try {
      return await requestWithin(guarded, {
        signal,
        milliseconds: this.#timeoutMs,
        what: `the ${name} hook`,
        failure: (error) =>
          new CompactionError("compactor_error", `the ${name} hook failed`, { cause: error }),
      });
    } finally {
      leave();
    }
  }
}
