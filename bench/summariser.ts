import type { LlmRequest } from "../src/index.js";
import { MockLlmClient } from "../src/testing/index.js";
import { FACT_KINDS, type FoundFact, findFacts } from "./facts.js";

const CHARS_PER_TOKEN = 4;

/** What the summariser was asked and answered, in estimated tokens. */
export interface SummariserLedger {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** Every fact-like string the summariser was handed. */
  handed: Set<string>;
}

const HEADINGS: Record<FoundFact["kind"], string> = {
  constraint: "User constraints (verbatim)",
  id: "Identifiers",
  number: "Values",
  path: "Files",
};

/**
 * A deterministic stand-in for a good summarising model: it keeps every identifier, path,
 * value and user constraint it is handed, the user's words first and the newest first within
 * each kind, until the summary reaches `maxTokens`. No prose is invented.
 */
export function deterministicSummary(request: LlmRequest): string {
  const budget = (request.maxTokens ?? 2048) * CHARS_PER_TOKEN;
  const toolCalls = request.prompt.split("<tool_output").length - 1;
  const header =
    `Goal: continue the user's task from this handoff. Summarised ${toolCalls} tool calls. ` +
    "Done: the steps below were explored; pending: the remaining failing checks.\n";
  const found = findFacts(request.prompt);
  let used = header.length;
  const kept = new Map<FoundFact["kind"], string[]>();
  for (const kind of FACT_KINDS) {
    const ofKind = found
      .filter((fact) => fact.kind === kind)
      .sort((a, b) => b.lastSeen - a.lastSeen);
    const lines: string[] = [];
    used += HEADINGS[kind].length + 2;
    for (const fact of ofKind) {
      if (used + fact.text.length + 3 > budget) break;
      used += fact.text.length + 3;
      lines.push(fact.text);
    }
    kept.set(kind, lines);
  }
  const sections = FACT_KINDS.map(
    (kind) => `${HEADINGS[kind]}:\n${(kept.get(kind) ?? []).map((text) => `- ${text}`).join("\n")}`,
  );
  return `${header}${sections.join("\n")}`;
}

/**
 * A `MockLlmClient` answering with {@link deterministicSummary}, and the ledger of what it
 * was asked: calls, input and output tokens, and the facts handed to it.
 */
export function createSummariser(): { client: MockLlmClient; ledger: SummariserLedger } {
  const ledger: SummariserLedger = { calls: 0, inputTokens: 0, outputTokens: 0, handed: new Set() };
  const client = new MockLlmClient({
    defaultReply: (request) => {
      const summary = deterministicSummary(request);
      ledger.calls += 1;
      ledger.inputTokens += Math.ceil(
        ((request.system ?? "").length + request.prompt.length) / CHARS_PER_TOKEN,
      );
      ledger.outputTokens += Math.ceil(summary.length / CHARS_PER_TOKEN);
      for (const fact of findFacts(request.prompt)) ledger.handed.add(fact.text);
      // The client records every request; drop the prompts so long runs stay small.
      client.requests.length = 0;
      return summary;
    },
  });
  return { client, ledger };
}
