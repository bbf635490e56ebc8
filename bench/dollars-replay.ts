import { basename } from "node:path";
import { roughTokens } from "../examples/support/messages-api-server.js";
import { signReplyContent } from "../examples/support/thinking-rules.js";
import { appendAnthropicResponse, toAnthropicMessages } from "../src/anthropic/index.js";
import { AgentSession, type Message } from "../src/index.js";
import {
  benchClock,
  type DollarRun,
  type DollarStrategy,
  eventCounter,
  type Ledger,
  ledgerTokens,
  pricedSummarizer,
  priceLedger,
} from "./dollars.js";
import { PrefixCache } from "./dollars-cache.js";
import { asBlocks, type RecordedRun, readRun, recordedReplies, unsigned } from "./replay.js";

/**
 * Part 5 on recorded agent runs (`--trajectories ../shared/realdata`): each run replayed
 * through each strategy as `bench/replay.ts` replays it (maybeCompact before each recorded
 * reply, the reply's thinking signed against the request), every request billed against the
 * prefix cache. Retention: the files the agent edited and the paths it touched (from tool
 * inputs) that the final request still names.
 */

const PATH_KEYS = new Set(["file_path", "path", "notebook_path", "filePath"]);
const EDIT_TOOL = /^(?:write|edit|multiedit|create|str_replace|notebookedit)/i;

/** Paths the run's tool inputs name: touched by any tool, and edited by a writing one. */
function pathsOf(run: RecordedRun): { touched: Set<string>; edited: Set<string> } {
  const touched = new Set<string>();
  const edited = new Set<string>();
  for (const message of run.messages) {
    for (const block of asBlocks(message.content)) {
      if (block.type !== "tool_use" || typeof block.input !== "object" || block.input === null)
        continue;
      for (const [key, value] of Object.entries(block.input as Record<string, unknown>)) {
        if (!PATH_KEYS.has(key) || typeof value !== "string" || value.length < 3) continue;
        touched.add(value);
        if (EDIT_TOOL.test(String(block.name))) edited.add(value);
      }
    }
  }
  return { touched, edited };
}

/** Replays one recorded run through one strategy, every request billed. */
export async function replayDollars(
  file: string,
  strategy: DollarStrategy,
  contextLimit: number,
): Promise<DollarRun> {
  const run = readRun(file);
  const system = run.system ?? "";
  const cache = new PrefixCache(roughTokens(system));
  const ledger: Ledger = { agent: [], summarizer: [] };
  const client = pricedSummarizer(cache, strategy.cachedSummaries === true, ledger);
  const clock = benchClock();
  const { counts, onEvent } = eventCounter();
  const session = new AgentSession({
    contextLimit,
    sessionId: `dollars-${strategy.name}`,
    clock,
    onEvent,
    ...strategy.options({ client, clock }),
  });
  let overWindow = 0;
  let last: readonly Message[] = [];
  for await (const content of recordedReplies(session, run, clock)) {
    const messages = session.messages;
    if (cache.tokens(messages) > contextLimit) overWindow += 1;
    const usage = cache.request(messages);
    ledger.agent.push(usage);
    last = messages;
    const body = {
      system,
      tools: [],
      thinking: { type: "adaptive" },
      messages: toAnthropicMessages(messages),
    };
    const reply = signReplyContent(body, content.map(unsigned));
    appendAnthropicResponse(session, {
      content: reply as never,
      usage: {
        input_tokens: usage.cacheReadInputTokens + usage.cacheCreationInputTokens,
        output_tokens: roughTokens(reply),
      },
    });
  }
  const finalText = JSON.stringify(toAnthropicMessages(last));
  const { touched, edited } = pathsOf(run);
  const kept = (paths: Set<string>) =>
    [...paths].filter((path) => finalText.includes(JSON.stringify(path).slice(1, -1))).length;
  return {
    source: "real",
    workload: basename(file, ".json"),
    strategy: strategy.name,
    requests: ledger.agent.length,
    overWindow,
    compactions: counts.compactions,
    trims: counts.trims,
    summarizerCalls: ledger.summarizer.length,
    ...ledgerTokens(ledger),
    dollars: priceLedger(ledger, overWindow === 0),
    retention: {
      edited: { planted: edited.size, kept: kept(edited) },
      path: { planted: touched.size, kept: kept(touched) },
    },
  };
}
