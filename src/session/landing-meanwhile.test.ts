import { describe, expect, it } from "vitest";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import type { ArchiveRecord } from "../core/archive-record.js";
import { validateConversation } from "../core/validate-conversation.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { AgentSession } from "./agent-session.js";
import { MemoryArchive } from "./archive.js";

/** An archive whose writes take a while, as a store's do. */
class SlowArchive extends MemoryArchive {
  override async put(sessionId: string, records: readonly ArchiveRecord[]): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 30));
    super.put(sessionId, records);
  }
}

/** A summarizer that answers when told to. */
function heldSummarizer() {
  let answer: (() => void) | undefined;
  const client = new MockLlmClient({
    defaultReply: () =>
      new Promise<string>((resolve) => {
        answer = () => resolve("summary of the earlier steps");
      }),
  });
  return { client, answer: () => answer?.() };
}

function summarizingSession(client: MockLlmClient): AgentSession {
  const session = new AgentSession({
    contextLimit: 200_000,
    llmCompactor: new LLMCompactor(client, { keepRecentTurns: 1 }),
  });
  for (let step = 0; step < 6; step += 1) {
    session.addUserText(`Step ${step}: fix module ${step}.`);
    session.addAssistant([{ type: "text", text: `fixed ${step} ${"x".repeat(2000)}` }]);
  }
  session.addUserText("Now run the tests and the linter.");
  return session;
}

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

describe("what is appended while a compaction runs (review 54c)", () => {
  it("results merged into the last message while the archive writes stay (H3)", async () => {
    const session = new AgentSession({ contextLimit: 10_000, archive: new SlowArchive() });
    session.addUserText("fix the build");
    for (let index = 0; index < 12; index += 1) {
      session.addAssistant([{ type: "tool_use", id: `t${index}`, name: "read", input: {} }]);
      session.addToolResults([
        { type: "tool_result", toolUseId: `t${index}`, content: `content ${"x".repeat(3000)}` },
      ]);
    }
    session.recordUsage({ inputTokens: 9_000 });
    const running = session.maybeCompact();
    session.addAssistant([
      { type: "tool_use", id: "a", name: "read", input: {} },
      { type: "tool_use", id: "b", name: "read", input: {} },
    ]);
    session.addToolResults([{ type: "tool_result", toolUseId: "a", content: "A result" }]);
    await tick(10);
    session.addToolResults([{ type: "tool_result", toolUseId: "b", content: "B result" }]);
    const report = await running;
    expect(report.compacted).toBe(true);
    const last = session.messages.at(-1)!;
    expect(last.content.map((block) => block.type === "tool_result" && block.toolUseId)).toEqual([
      "a",
      "b",
    ]);
    expect(validateConversation(session.messages)).toEqual([]);
  });

  it("a forceCompact whose summary comes while a call waits lands nothing: the call keeps its thinking (H2)", async () => {
    const { client, answer } = heldSummarizer();
    const session = summarizingSession(client);
    const forced = session.forceCompact();
    await tick();
    const call = session.addAssistant([
      { type: "thinking", thinking: "Run the tests.", signature: "sig-1" },
      { type: "tool_use", id: "run", name: "bash", input: {} },
    ]);
    answer();
    await expect(forced).rejects.toMatchObject({ code: "aborted" });
    expect(session.messages.at(-1)).toBe(call);
    session.addToolResults([{ type: "tool_result", toolUseId: "run", content: "12 passing" }]);
    expect(validateConversation(session.messages)).toEqual([]);
  });

  it("a maybeCompact whose summary comes while a call waits reports it, never rejects (H2)", async () => {
    const { client, answer } = heldSummarizer();
    const session = summarizingSession(client);
    session.recordUsage({ inputTokens: 190_000 });
    const running = session.maybeCompact();
    await tick();
    session.addAssistant([
      { type: "thinking", thinking: "Run the tests.", signature: "sig-1" },
      { type: "tool_use", id: "run", name: "bash", input: {} },
    ]);
    answer();
    const report = await running;
    expect(report.compacted).toBe(false);
    expect(report.error?.code).toBe("aborted");
    session.addToolResults([{ type: "tool_result", toolUseId: "run", content: "12 passing" }]);
    expect(validateConversation(session.messages)).toEqual([]);
  });

  it("a last resort whose archive write meets a call appended meanwhile reports it, never rejects (review 54d #1)", async () => {
    const session = new AgentSession({
      contextLimit: 20_000,
      compactor: false,
      archive: new SlowArchive(),
    });
    for (let turn = 0; turn < 10; turn += 1) {
      session.addUserText(`Question ${turn}: ${"q".repeat(6_000)}`);
      session.addAssistant([{ type: "text", text: `Answer ${turn}: ${"a".repeat(6_000)}` }]);
    }
    session.addUserText("run the tests");
    const running = session.maybeCompact();
    await tick();
    session.addAssistant([{ type: "tool_use", id: "t1", name: "bash", input: {} }]);
    const report = await running;
    expect(report.error?.code).toBe("aborted");
    session.addToolResults([{ type: "tool_result", toolUseId: "t1", content: "ok" }]);
    expect(validateConversation(session.messages)).toEqual([]);
    // Answered, the calls let the next call trim.
    expect((await session.maybeCompact()).overWindow).toBe(false);
  });

  it("nor while half of a message's calls are answered: the other result can still be added (H2)", async () => {
    const { client, answer } = heldSummarizer();
    const session = summarizingSession(client);
    const forced = session.forceCompact();
    await tick();
    session.addAssistant([
      { type: "thinking", thinking: "Run both.", signature: "sig-1" },
      { type: "tool_use", id: "test", name: "bash", input: {} },
      { type: "tool_use", id: "lint", name: "bash", input: {} },
    ]);
    session.addToolResults([{ type: "tool_result", toolUseId: "test", content: "12 passing" }]);
    answer();
    await expect(forced).rejects.toMatchObject({ code: "aborted" });
    session.addToolResults([{ type: "tool_result", toolUseId: "lint", content: "no problems" }]);
    expect(validateConversation(session.messages)).toEqual([]);
    // Once the calls are answered, a compaction lands.
    const again = session.forceCompact();
    await tick();
    answer();
    expect((await again).turnsCompacted).toBeGreaterThan(0);
    expect(validateConversation(session.messages)).toEqual([]);
  });
});
