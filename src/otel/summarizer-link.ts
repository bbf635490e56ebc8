import type { Span } from "@opentelemetry/api";
import type { LlmClient } from "../core/llm-client.js";

/** Where a traced summarizer keeps its runs (a `Symbol.for` key: it works across package copies). */
const RUNS_KEY = Symbol.for("agent-compaction.otel.summarizerRuns");

/**
 * The compaction runs a traced summarizer serves now, each under its run id: `traceCompactions`
 * opens a run's span here while the run lasts, and the client `traceLlmClient` returned parents
 * each request's `chat` span under the run the request names (`LlmRequest.runId`, which the
 * session gives each run and its compactor passes on). The parent travels with the request, so
 * sessions sharing one summarizer never parent each other's spans. A request that names no run
 * (a custom compactor's) goes under the one run open, when just one is.
 */
export class SummarizerRuns {
  readonly #runs = new Map<string, { span: Span; requests: number }>();

  /** A run starts: requests naming `runId` go under `span`. */
  open(runId: string, span: Span): void {
    this.#runs.set(runId, { span, requests: 0 });
  }

  /** A run ends; how many requests went under it. */
  close(runId: string): number {
    const run = this.#runs.get(runId);
    this.#runs.delete(runId);
    return run?.requests ?? 0;
  }

  /** The span a request goes under (counted for its run); `undefined`: none, the active context. */
  parentOf(runId: string | undefined): Span | undefined {
    const run =
      runId !== undefined
        ? this.#runs.get(runId)
        : this.#runs.size === 1
          ? this.#runs.values().next().value
          : undefined;
    if (run === undefined) return undefined;
    run.requests += 1;
    return run.span;
  }
}

/** Gives a client `traceLlmClient` returned its runs. */
export function attachSummarizerRuns(client: LlmClient): SummarizerRuns {
  const runs = new SummarizerRuns();
  Object.defineProperty(client, RUNS_KEY, { value: runs, enumerable: false });
  return runs;
}

/** The runs of a client `traceLlmClient` returned; `undefined` for any other client. */
export function summarizerRuns(client: unknown): SummarizerRuns | undefined {
  if (typeof client !== "object" || client === null) return undefined;
  const runs = (client as { [RUNS_KEY]?: unknown })[RUNS_KEY];
  return runs instanceof SummarizerRuns || isRunsLike(runs) ? (runs as SummarizerRuns) : undefined;
}

/** A `SummarizerRuns` of another copy of the package. */
function isRunsLike(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Partial<SummarizerRuns>).parentOf === "function"
  );
}
