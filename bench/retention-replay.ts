/**
 * Retention on real runs (issue 23, part 4): the files the agent edited and the paths it
 * touched that a session still names after replaying a recorded run (bench/retention.ts prints
 * it; test/bench/retention.test.ts holds the targets).
 */
import { basename } from "node:path";
import { roughTokens } from "../examples/support/messages-api-server.js";
import { appendAnthropicResponse, toAnthropicMessages } from "../src/anthropic/index.js";
import { fileActions, type LedgerState, newLedgerState } from "../src/compactors/file-ledger.js";
import {
  AgentSession,
  type AgentSessionOptions,
  HybridCompactor,
  LLMCompactor,
  type Message,
} from "../src/index.js";
import { benchClock } from "./dollars-billing.js";
import { readRun, recordedReplies } from "./replay.js";
import { createSummariser } from "./summariser.js";

/** The replayed strategies, configured as bench/replay.ts configures them. */
export const REPLAYED: Record<string, () => Partial<AgentSessionOptions>> = {
  default: () => ({}),
  hybrid: () => ({ compactor: new HybridCompactor({ client: createSummariser().client }) }),
  llm: () => ({
    llmCompactor: new LLMCompactor(createSummariser().client, {
      keepRecentTurns: 1,
      targetUtilization: 0.5,
    }),
  }),
};

function requestText(messages: readonly Message[]): string {
  return JSON.stringify(messages.map((message) => message.content));
}

/** What a replay kept of the files the agent edited and the paths it touched. */
export interface FileRetention {
  file: string;
  strategy: string;
  edited: number;
  editedKept: number;
  touched: number;
  touchedKept: number;
}

/**
 * Replays one recorded run through a strategy (`default`, `hybrid` or `llm`, as in
 * bench/replay.ts) and counts the files the agent edited and the paths it touched (read from
 * its tool inputs by the ledger's rules) that the final request still names.
 */
export async function replayRetention(
  file: string,
  strategy: string,
  window: number,
): Promise<FileRetention> {
  const run = readRun(file);
  const clock = benchClock();
  const session = new AgentSession({
    contextLimit: window,
    sessionId: `retention-${strategy}`,
    clock,
    ...REPLAYED[strategy]!(),
  });
  const state: LedgerState = newLedgerState();
  const edited = new Set<string>();
  const touched = new Set<string>();
  for await (const content of recordedReplies(session, run, clock)) {
    const reply = content.filter(
      (block) => block["type"] !== "thinking" && block["type"] !== "redacted_thinking",
    );
    for (const block of reply) {
      if (block["type"] !== "tool_use") continue;
      for (const action of fileActions(block["name"] as string, block["input"] as never, state)) {
        touched.add(action.path);
        if (action.action !== "read") edited.add(action.path);
      }
    }
    appendAnthropicResponse(session, {
      content: (reply.length === 0 ? [{ type: "text", text: "…" }] : reply) as never,
      usage: {
        input_tokens: roughTokens({ messages: toAnthropicMessages(session.messages) }),
        output_tokens: roughTokens(reply),
      },
    });
  }
  await session.maybeCompact();
  const text = requestText(session.messages);
  if (process.env["RETENTION_DEBUG"])
    process.stderr.write(
      `${basename(file)} ${strategy}: ${session.messages.length} messages, ${text.length} chars\n`,
    );
  const keptOf = (paths: Set<string>) =>
    [...paths].filter((path) => text.includes(JSON.stringify(path).slice(1, -1))).length;
  return {
    file: basename(file),
    strategy,
    edited: edited.size,
    editedKept: keptOf(edited),
    touched: touched.size,
    touchedKept: keptOf(touched),
  };
}
