import {
  AgentSession,
  type CompactionEvent,
  type ContentBlock,
  estimateTokens,
  HybridCompactor,
  type ToolResultBlock,
} from "../src/index.js";
import { MockLlmClient } from "../src/testing/index.js";
import { renderContextChart } from "./demo-chart.js";

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Receives each line of output. */
  write: (line: string) => void;
  /** Model requests in the session. @default 160 */
  requests?: number;
  /** The model's context window in tokens. @default 64000 */
  contextLimit?: number;
}

/** What the demo session did, for the closing line (and for tests). */
export interface DemoSummary {
  requests: number;
  maskings: number;
  summaries: number;
  /** Input tokens sent over the session, and what they would have been without compaction. */
  billed: number;
  billedWithout: number;
  peak: number;
  peakWithout: number;
  requestsOverWindow: number;
  /** Context used by each request. */
  contextPerRequest: number[];
}

const SYSTEM_AND_TOOLS_TOKENS = 2500;
const THRESHOLD = 0.75;
const TARGET = 0.5;
const WORDS =
  "the billing invoice ledger handler test fails when the tax rounding uses floats so we check the module and its callers then patch the code and run the suite again".split(
    " ",
  );
const FILES = [
  "src/billing/invoice.ts",
  "src/billing/tax.ts",
  "src/ledger/post.ts",
  "test/tax.test.ts",
];
const TASKS = [
  "Fix the failing tax rounding test in the billing module.",
  "Also make sure invoices round half-even, never half-up.",
  "Now add a regression test for invoice 4711.",
  "Check the ledger posts the rounded amount too.",
  "Run the whole suite and summarise what changed.",
];

/** A tiny deterministic generator, so every run prints the same session. */
function createRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 4_294_967_296;
  };
}

function thousands(value: number): string {
  return Math.round(value).toLocaleString("en");
}

function percent(tokens: number, limit: number): string {
  return `${Math.round((tokens / limit) * 100)}%`;
}

/**
 * Runs an offline agent session (a scripted agent, tools with canned outputs and a
 * `MockLlmClient` writing the summaries) that crosses the compaction threshold several times,
 * and writes what each compaction did, a chart of context per request and the tokens saved.
 */
export async function runDemo(options: DemoOptions): Promise<DemoSummary> {
  const { write } = options;
  const requests = options.requests ?? 160;
  const contextLimit = options.contextLimit ?? 64_000;
  const random = createRandom(7);
  const text = (tokens: number) => {
    const words: string[] = [];
    for (let length = 0; length < tokens * 4; length += 6) {
      words.push(WORDS[Math.floor(random() * WORDS.length)]!);
    }
    return words.join(" ");
  };

  let tick = Date.UTC(2026, 0, 1);
  const clock = () => {
    tick += 1000;
    return new Date(tick);
  };
  const summariser = new MockLlmClient({
    defaultReply: (request, index) =>
      `Summary ${index + 1}. Goal: fix the tax rounding in billing; invoices round half-even, ` +
      `never half-up. Files: ${FILES.join(", ")}. Done: tests located and patched. ` +
      `Next: run the suite. (Written from ${thousands(request.prompt.length / 4)} tokens of transcript.)`,
  });

  let request = 0;
  const compactions = new Map<number, "M" | "S">();
  let maskings = 0;
  let summaries = 0;
  const onEvent = (event: CompactionEvent) => {
    if (event.type === "compaction_failed") {
      write(`  request ${request + 1}: compaction failed (${event.error.code})`);
      return;
    }
    if (event.type !== "compaction_end") return;
    const { result } = event;
    const masked = result.toolResultsSummarized + result.toolResultsRedacted;
    if (masked === 0 && result.turnsCompacted === 0) return;
    const summarised = result.turnsCompacted > 0;
    if (summarised) summaries += 1;
    else maskings += 1;
    compactions.set(request, summarised ? "S" : "M");
    const what = summarised
      ? `summary by the LLM (mock) of ${result.turnsCompacted} turn(s)`
      : `masked ${masked} old tool result(s) (${result.toolResultsSummarized} to their compact summary, ${result.toolResultsRedacted} redacted)`;
    write(
      `  request ${String(request + 1).padStart(3)}: ${what}; context ` +
        `${thousands(event.contextUsedBefore)} → ${thousands(event.contextUsedAfter)} tokens ` +
        `(${percent(event.contextUsedBefore, contextLimit)} → ${percent(event.contextUsedAfter, contextLimit)})`,
    );
  };

  const session = new AgentSession({
    contextLimit,
    clock,
    onEvent,
    compactor: new HybridCompactor({
      client: summariser,
      threshold: THRESHOLD,
      targetUtilization: TARGET,
      keepRecentToolUses: 6,
      clock,
    }),
  });

  write(
    `An offline agent session: ${requests} model requests, a ${thousands(contextLimit)}-token window, ` +
      `HybridCompactor (mask old tool results first, summarise only when masking cannot reach the target).`,
  );
  write(
    `Threshold ${THRESHOLD * 100}%, target ${TARGET * 100}%; summaries come from MockLlmClient, no network.`,
  );
  write("");
  write("Compactions:");

  const contextPerRequest: number[] = [];
  let billed = 0;
  let billedWithout = 0;
  let uncompacted = 0;
  let peakWithout = 0;
  let over = 0;
  let task = 0;
  let nextTask = 0;
  for (request = 0; request < requests; request += 1) {
    if (request === nextTask) {
      const message = session.addUserText(TASKS[task % TASKS.length]!);
      uncompacted += estimateTokens([message]);
      task += 1;
      nextTask = request + 6 + Math.floor(random() * 20);
    }

    // Compact first, then build the request from what is left.
    await session.maybeCompact();
    const used = SYSTEM_AND_TOOLS_TOKENS + estimateTokens(session.messages);
    contextPerRequest.push(used);
    billed += used;
    if (used > contextLimit) over += 1;
    billedWithout += SYSTEM_AND_TOOLS_TOKENS + uncompacted;
    peakWithout = Math.max(peakWithout, SYSTEM_AND_TOOLS_TOKENS + uncompacted);

    // The scripted model: some reasoning and a tool call (the last request answers).
    const last = request === requests - 1;
    const id = `toolu_demo_${request}`;
    const file = FILES[request % FILES.length]!;
    const tool = ["read_file", "grep", "run_tests"][request % 3]!;
    const content: ContentBlock[] = [{ type: "text", text: text(60 + random() * 200) }];
    if (!last) content.push({ type: "tool_use", id, name: tool, input: { path: file } });
    const reply = session.addAssistant(content);
    uncompacted += estimateTokens([reply]);
    session.recordUsage({ inputTokens: used, outputTokens: estimateTokens([reply]) });
    if (last) break;

    const size = random() < 0.1 ? 6000 + random() * 6000 : 300 + random() * 2500;
    const output: ToolResultBlock = {
      type: "tool_result",
      toolUseId: id,
      content: text(size),
      isError: tool === "run_tests" && random() < 0.3,
      compactSummary: `${tool} ${file}: ${thousands(size)} tokens of output (re-run to see it again)`,
    };
    uncompacted += estimateTokens([session.addToolResults([output])]);
  }

  write("");
  write("Context used per request (each column is the largest of its requests):");
  for (const line of renderContextChart({
    values: contextPerRequest,
    limit: contextLimit,
    threshold: THRESHOLD,
    target: TARGET,
    compactions,
  })) {
    write(line);
  }
  write("  M = masking compaction, S = summary compaction");
  write("");
  const peak = Math.max(...contextPerRequest);
  const saved = billedWithout - billed;
  write(
    `Saved ${thousands(saved)} of ${thousands(billedWithout)} input tokens (${Math.round((saved / billedWithout) * 100)}%) over ${contextPerRequest.length} requests: ` +
      `${maskings} maskings, ${summaries} summaries, peak ${thousands(peak)} tokens vs ${thousands(peakWithout)} without compaction, ` +
      `${over} requests over the window.`,
  );
  return {
    requests: contextPerRequest.length,
    maskings,
    summaries,
    billed,
    billedWithout,
    peak,
    peakWithout,
    requestsOverWindow: over,
    contextPerRequest,
  };
}
