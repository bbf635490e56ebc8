import { describe, expect, it } from "vitest";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import { SUMMARY_TURN_ID } from "../core/turn.js";
import { validateConversation } from "../core/validate-conversation.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { AgentSession } from "./agent-session.js";

function controlledClient() {
  const pending: ((text: string) => void)[] = [];
  const client = new MockLlmClient({
    defaultReply: () => new Promise<string>((resolve) => pending.push(resolve)),
  });
  return { client, pending };
}

function turn(session: AgentSession, n: number) {
  session.addUserText(`request ${n}`);
  session.addAssistant([{ type: "tool_use", id: `t${n}`, name: "read", input: { n } }]);
  session.addToolResults([{ type: "tool_result", toolUseId: `t${n}`, content: "x".repeat(2800) }]);
  session.addAssistant([{ type: "text", text: `done ${n}` }]);
}

function backgroundSession(client: MockLlmClient, ceiling = 0.95) {
  return new AgentSession({
    contextLimit: 4000,
    compactor: false,
    trimOnOverflow: false,
    background: { ceiling },
    llmCompactor: new LLMCompactor(client, { keepRecentTurns: 1, threshold: 0.5 }),
  });
}

describe("background compaction", () => {
  it("returns at once while the summary is written, then swaps exactly the prefix it covers at the next call", async () => {
    const { client, pending } = controlledClient();
    const session = backgroundSession(client);
    for (let n = 1; n <= 4; n += 1) turn(session, n);
    const before = session.messages;
    const first = await session.maybeCompact();
    expect(first.inBackground).toBe(true);
    expect(session.messages).toBe(before); // the agent goes on with the full history
    expect(pending).toHaveLength(1);

    // The agent keeps going; another call does not start a second summary.
    session.addUserText("request 5");
    const second = await session.maybeCompact();
    expect(second.inBackground).toBe(true);
    expect(client.callCount).toBe(1);
    const late = session.messages.at(-1)!;

    pending[0]!("the summary");
    await new Promise((resolve) => setImmediate(resolve));
    // Arrived, but applied only at the next maybeCompact, before its request.
    expect(session.messages.some((message) => message.turnId.number === 0)).toBe(false);
    const applied = await session.maybeCompact();
    expect(applied.compacted).toBe(true);
    expect(applied.boundaries[0]?.turnsCompacted).toBeGreaterThan(0);
    expect(session.messages[0]?.turnId).toEqual(SUMMARY_TURN_ID);
    expect(session.messages.at(-1)).toBe(late); // appended meanwhile: kept, after it
    expect(validateConversation(session.messages)).toEqual([]);
  });

  it("after a call with nothing to do, a later summary still waits for the next call (review 54c H1)", async () => {
    const { client, pending } = controlledClient();
    const session = backgroundSession(client);
    session.addUserText("request 0");
    // The first step of any loop: nothing is due, the run ends without a summary.
    expect((await session.maybeCompact()).compacted).toBe(false);
    session.addAssistant([{ type: "text", text: "ok" }]);
    for (let n = 1; n <= 4; n += 1) turn(session, n);
    expect((await session.maybeCompact()).inBackground).toBe(true);
    // The reply calls two tools; the first result comes, then the summary, then the second.
    session.addAssistant([
      { type: "thinking", thinking: "Run both.", signature: "sig-1" },
      { type: "tool_use", id: "a", name: "bash", input: {} },
      { type: "tool_use", id: "b", name: "bash", input: {} },
    ]);
    session.addToolResults([{ type: "tool_result", toolUseId: "a", content: "done a" }]);
    pending[0]!("the summary");
    await new Promise((resolve) => setImmediate(resolve));
    expect(session.messages.some((message) => message.generated === "summary")).toBe(false);
    session.addToolResults([{ type: "tool_result", toolUseId: "b", content: "done b" }]);
    expect((await session.maybeCompact()).compacted).toBe(true);
    expect(session.messages[0]?.turnId).toEqual(SUMMARY_TURN_ID);
    expect(validateConversation(session.messages)).toEqual([]);
  });

  it("waits for the summary above the ceiling", async () => {
    const { client, pending } = controlledClient();
    const session = backgroundSession(client, 0.6);
    for (let n = 1; n <= 4; n += 1) turn(session, n);
    expect(session.contextUsed / 4000).toBeGreaterThan(0.6);
    const call = session.maybeCompact();
    await expect.poll(() => pending.length).toBe(1);
    let settled = false;
    void call.then(() => {
      settled = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    pending[0]!("the summary");
    const report = await call;
    expect(report.inBackground).toBeUndefined();
    expect(report.compacted).toBe(true);
  });

  it("forceCompact lets a waiting summary be applied rather than wait for it forever", async () => {
    let resolveFirst: (text: string) => void = () => {};
    const client = new MockLlmClient({
      replies: [() => new Promise<string>((resolve) => (resolveFirst = resolve))],
      defaultReply: "again",
    });
    const session = backgroundSession(client);
    for (let n = 1; n <= 4; n += 1) turn(session, n);
    expect((await session.maybeCompact()).inBackground).toBe(true);
    resolveFirst("the summary");
    await new Promise((resolve) => setImmediate(resolve));
    const forced = await session.forceCompact();
    expect(forced).toBeDefined();
    expect(session.messages[0]?.turnId).toEqual(SUMMARY_TURN_ID);
    expect(validateConversation(session.messages)).toEqual([]);
  });
});
