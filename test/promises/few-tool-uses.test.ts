import { describe, expect, it } from "vitest";
import {
  AgentSession,
  DEFAULT_SESSION_COMPACTOR_OPTIONS,
  estimateTokens,
  ThresholdCompactor,
} from "../../src/index.js";
import { ConversationBuilder } from "../../src/testing/index.js";

// A chat with few tool uses or none. The compactors keep the 8 newest tool uses whole and the
// newest tenth of the window. Before, a conversation holding fewer than 8 tool uses was kept
// whole: the default compactor could then only cut down to its threshold (72%), so a plain chat
// compacted at nearly every other request (79 compactions in 600, each a rewrite of the prompt
// cache). Now the kept part is all of its tool uses and the newest tenth, and a compaction
// lands near the target (20%).

const WINDOW = 20_000;
const REQUESTS = 600;

interface Run {
  compactions: number;
  /** The context after each compaction, as a share of the window. */
  landings: number[];
}

async function chat(toolUses: number, session = new AgentSession({ contextLimit: WINDOW })) {
  const run: Run = { compactions: 0, landings: [] };
  session.addUserText("Look at these files, then answer my questions.");
  for (let use = 0; use < toolUses; use += 1) {
    const id = `t${use}`;
    session.addAssistant([{ type: "tool_use", id, name: "read_file", input: { path: `f${use}` } }]);
    session.addToolResults([{ type: "tool_result", toolUseId: id, content: "r".repeat(400) }]);
  }
  session.addAssistant([{ type: "text", text: "Read them." }]);
  for (let request = 0; request < REQUESTS; request += 1) {
    const report = await session.maybeCompact();
    if (report.compacted) {
      run.compactions += 1;
      run.landings.push(estimateTokens(session.messages) / WINDOW);
    }
    session.addUserText(`Question ${request}: ${"q".repeat(300)}`);
    session.addAssistant([{ type: "text", text: `Answer ${request}: ${"a".repeat(900)}` }]);
  }
  return run;
}

describe("a chat with fewer tool uses than the compactors keep whole", () => {
  it("lands near the default compactor's target, so it compacts rarely", async () => {
    for (const toolUses of [0, 3]) {
      const run = await chat(toolUses);
      expect(run.compactions, `${toolUses} tool uses`).toBeLessThan(25);
      // After the first compaction (which keeps the tool uses, the newest ones there are).
      for (const landing of run.landings.slice(1)) expect(landing).toBeLessThan(0.3);
    }
  });

  it("lands near the target when the only tool use is old, and a second pass changes nothing", () => {
    const builder = new ConversationBuilder().user("Read the config.");
    builder.toolCall({
      name: "read_file",
      input: { path: "config.json" },
      result: "r".repeat(1600),
    });
    builder.assistant("Read it.");
    for (let turn = 0; turn < 40; turn += 1)
      builder.user(`Question ${turn}: ${"q".repeat(300)}`).assistant(`Answer: ${"a".repeat(900)}`);
    const conversation = builder.build();
    const contextUsed = estimateTokens(conversation);
    const contextLimit = Math.floor(contextUsed / 0.8);
    const compactor = new ThresholdCompactor({
      ...DEFAULT_SESSION_COMPACTOR_OPTIONS,
      clearAtLeast: Math.floor(0.1 * contextLimit),
      clock: () => new Date("2026-02-01T00:00:00Z"),
    });
    const first = compactor.compact(conversation, new Map(), { contextLimit, contextUsed });
    expect(estimateTokens(first.conversation) / contextLimit).toBeLessThan(0.3);
    const freed = first.result.tokensBefore! - first.result.tokensAfter!;
    const context = { contextLimit, contextUsed: contextUsed - freed };
    const second = compactor.compact(first.conversation, new Map(), context);
    expect(second.conversation).toEqual(first.conversation);
  });
});
