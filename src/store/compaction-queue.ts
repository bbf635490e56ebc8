import {
  ForceCompactOptionsSchema,
  type ForceCompactResult,
  MaybeCompactOptionsSchema,
  startCall,
} from "../session/compaction-report.js";
import { HookScope } from "../session/hook-scope.js";
import type { BeforeCompactHook } from "../session/hooks.js";
import { JoinedRun } from "../session/joined-run.js";
import {
  type CompactionHost,
  compactAuto,
  compactManual,
  runAfterHooks,
  type StoredCompactionReport,
} from "./stored-compaction.js";

/**
 * A stored session's compactions on this worker, one at a time as in `AgentSession`: a
 * `maybeCompact` joins the one running, `afterCompact` hooks run once the compaction has
 * released the session and its lease (so a hook may start another), and a compaction started
 * from the session's own `beforeCompact` hook is refused with `busy` (it would wait for
 * itself); calls from elsewhere wait their turn.
 */
export class CompactionQueue {
  readonly #scope = new HookScope();
  #host: CompactionHost | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #auto = new JoinedRun<StoredCompactionReport>();

  /** The session's `beforeCompact`, run inside the scope whose compactions are refused. */
  scoped(hook: BeforeCompactHook | undefined): BeforeCompactHook | undefined {
    if (hook === undefined) return undefined;
    return (context) => this.#scope.run(async () => hook(context));
  }

  /** Binds the queue to its session (whose options hold the {@link scoped} hook). */
  attach(host: CompactionHost): void {
    this.#host = host;
  }

  /** See `StoredSession.maybeCompact`. */
  maybeCompact(options: unknown): Promise<StoredCompactionReport> {
    return startCall(
      MaybeCompactOptionsSchema,
      options,
      "maybeCompact",
      this.#scope.active,
      (parsed) => {
        if (this.#auto.pending !== undefined) return this.#auto.pending;
        const host = this.#attached;
        const queued = this.#enqueue(async () => {
          for (let attempt = 1; ; attempt += 1) {
            const report = await compactAuto(host, parsed);
            if (report.discarded !== "conflict" || attempt >= host.maxAttempts) return report;
          }
        });
        return this.#auto.start(queued, async (report) => {
          await runAfterHooks(host, report.boundaries);
          return report;
        });
      },
    );
  }

  /** See `StoredSession.forceCompact`. */
  forceCompact(options: unknown): Promise<ForceCompactResult> {
    return startCall(
      ForceCompactOptionsSchema,
      options,
      "forceCompact",
      this.#scope.active,
      async (parsed) => {
        const host = this.#attached;
        const result = await this.#enqueue(() => compactManual(host, parsed));
        await runAfterHooks(host, result.boundaries);
        return result;
      },
    );
  }

  get #attached(): CompactionHost {
    if (this.#host === undefined) throw new Error("the compaction queue has no session");
    return this.#host;
  }

  /** Runs `task` after every compaction queued before it. */
  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}
