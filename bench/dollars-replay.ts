import { basename } from "node:path";
import { roughTokens } from "../examples/support/messages-api-server.js";
import { signReplyContent } from "../examples/support/thinking-rules.js";
import { appendAnthropicResponse, toAnthropicMessages } from "../src/anthropic/index.js";
import type { DollarStrategy } from "./dollars.js";
import { BilledSession, type DollarRun } from "./dollars-billing.js";
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
      if (
        block["type"] !== "tool_use" ||
        typeof block["input"] !== "object" ||
        block["input"] === null
      )
        continue;
      for (const [key, value] of Object.entries(block["input"] as Record<string, unknown>)) {
        if (!PATH_KEYS.has(key) || typeof value !== "string" || value.length < 3) continue;
        touched.add(value);
        if (EDIT_TOOL.test(String(block["name"]))) edited.add(value);
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
  const billed = new BilledSession({
    contextLimit,
    systemTokens: roughTokens(system),
    sessionId: `dollars-${strategy.name}`,
    cachedSummaries: strategy.cachedSummaries === true,
    options: strategy.options,
  });
  const { session } = billed;
  for await (const content of recordedReplies(session, run, billed.clock)) {
    const messages = session.messages;
    const { usage } = billed.bill(messages);
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
  const finalText = JSON.stringify(toAnthropicMessages(billed.last));
  const { touched, edited } = pathsOf(run);
  const kept = (paths: Set<string>) =>
    [...paths].filter((path) => finalText.includes(JSON.stringify(path).slice(1, -1))).length;
  return billed.result({
    source: "real",
    workload: basename(file, ".json"),
    strategy: strategy.name,
    retention: {
      edited: { planted: edited.size, kept: kept(edited) },
      path: { planted: touched.size, kept: kept(touched) },
    },
  });
}
