import { describe, expect, it } from "vitest";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import { ThresholdCompactor } from "../compactors/threshold-compactor.js";
import { ValidationError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { CHARS_PER_TOKEN } from "../core/tokens.js";
import { ConversationBuilder, MockLlmClient } from "../testing/index.js";
import { AgentSession } from "./agent-session.js";
import { ContextMeter, MAX_TOKEN_RATIO } from "./context-meter.js";
import type { CompactionEvent } from "./events.js";

const OVERHEAD = 2_000;

/** A text message of about `tokens` tokens by the local estimate. */
function textMessage(id: string, tokens: number, role: "user" | "assistant" = "user"): Message {
  const builder = new ConversationBuilder();
  const built = (
    role === "user"
      ? builder.user("x".repeat(tokens * 4))
      : builder.user("go").assistant("y".repeat(tokens * 4))
  ).build();
  return { ...built.at(-1)!, id };
}

/**
 * A session the provider counts `ratio` tokens for each token the local estimate counts (dense
 * code, JSON, CJK text), plus a system prompt of {@link OVERHEAD}: one file read a step, its
 * usage reported as an agent loop reports it. What the session measured and what the provider
 * would count after each compaction, and the warnings.
 */
async function agentRun(ratio: number, steps = 30) {
  const events: CompactionEvent[] = [];
  const session = new AgentSession({
    contextLimit: 100_000,
    onEvent: (event) => events.push(event),
  });
  const real = () => Math.round(ratio * estimateTokens(session.messages)) + OVERHEAD;
  const compactions: { measured: number; real: number; messages: number }[] = [];
  session.addUserText("Refactor the module. Never touch lock.json.");
  for (let step = 0; step < steps; step += 1) {
    const report = await session.maybeCompact();
    if (report.compacted)
      compactions.push({
        measured: report.contextUsedAfter,
        real: real(),
        messages: session.messages.length,
      });
    expect(real()).toBeLessThanOrEqual(100_000);
    const sent = real();
    session.addAssistant([
      { type: "tool_use", id: `toolu_${step}`, name: "read", input: { path: `f${step}.ts` } },
    ]);
    session.recordUsage({ inputTokens: sent, outputTokens: 50 });
    session.addToolResults([
      {
        type: "tool_result",
        toolUseId: `toolu_${step}`,
        content: `/* f${step} */ `.repeat(Math.round(4000 / ratio)),
      },
    ]);
  }
  const warnings = events.filter((event) => event.type === "context_window_warning");
  return { compactions, warnings };
}

describe("ContextMeter", () => {
  it("counts what the provider counts beyond the estimate as overhead until two usages lie far enough apart", () => {
    const meter = new ContextMeter();
    meter.contextLimit = 200_000;
    const first = [textMessage("a", 10_000)];
    meter.added(first);
    const estimate = meter.estimate;
    meter.recorded({ inputTokens: 3 * estimate + OVERHEAD }, first);
    expect(meter.ratio).toBe(1);
    expect(meter.contextUsed).toBe(3 * estimate + OVERHEAD);
    // A tool result's worth more: too close to learn from.
    const second = [...first, textMessage("b", 500)];
    meter.added(second.slice(1));
    meter.recorded({ inputTokens: 3 * meter.estimate + OVERHEAD }, second);
    expect(meter.ratio).toBe(1);
    // Far enough: the ratio learned, at three quarters of its excess over 1.
    const third = [...second, textMessage("c", 20_000)];
    meter.added(third.slice(2));
    meter.recorded({ inputTokens: 3 * meter.estimate + OVERHEAD }, third);
    expect(meter.ratio).toBeCloseTo(3, 5);
    expect(meter.contextUsed).toBe(3 * meter.estimate + OVERHEAD);
    // Messages appended since count at the ratio.
    const appended = textMessage("d", 1_000);
    meter.added([appended]);
    expect(meter.contextUsed).toBe(
      Math.ceil(
        3 * (meter.estimate - estimateTokens([appended])) +
          OVERHEAD +
          3 * estimateTokens([appended]),
      ),
    );
  });

  it("after a replacement keeps the overhead and counts the messages left at the ratio, where it kept all it counted beyond the estimate", () => {
    const meter = new ContextMeter();
    meter.contextLimit = 200_000;
    const small = [textMessage("a", 5_000)];
    meter.added(small);
    meter.recorded({ inputTokens: 3 * meter.estimate + OVERHEAD }, small);
    const large = [...small, textMessage("b", 40_000)];
    meter.added(large.slice(1));
    meter.recorded({ inputTokens: 3 * meter.estimate + OVERHEAD }, large);
    const kept = large.slice(0, 1);
    meter.replaced(kept);
    const real = 3 * estimateTokens(kept) + OVERHEAD;
    // What the provider counts, where a meter that kept the removed messages' whole undercount
    // (2 × 40k) read 97k.
    expect(meter.contextUsed).toBe(real);
  });

  it("keeps the system prompt after a compaction when the ratio was learned on denser content than the start (review 56g #1)", () => {
    const system = 30_000;
    const meter = new ContextMeter();
    meter.contextLimit = 400_000;
    // The first request, then prose results (counted as estimated), then JSON at 2.5 a token.
    const messages = [
      textMessage("u", 500),
      textMessage("p1", 20_000),
      textMessage("p2", 20_000),
      textMessage("j1", 20_000),
      textMessage("j2", 20_000),
    ];
    const density = [1, 1, 1, 2.5, 2.5];
    for (let count = 1; count <= messages.length; count += 1) {
      const sent = messages.slice(0, count);
      meter.added(sent.slice(-1));
      let counted = system;
      sent.forEach((message, index) => {
        counted += density[index]! * estimateTokens([message]);
      });
      meter.recorded({ inputTokens: Math.round(counted) }, sent);
    }
    expect(meter.ratio).toBeCloseTo(2.5, 2);
    // The fit takes the prose for JSON: its overhead is 30k - 1.5 × 40.5k, below 0. The first
    // request's usage (mostly the system prompt) holds it after the compaction keeps the JSON.
    const kept = messages.slice(-1);
    meter.replaced(kept);
    const real = system + 2.5 * estimateTokens(kept);
    expect(meter.contextUsed).toBeGreaterThan(real - 1.5 * 600);
    expect(meter.contextUsed).toBeLessThanOrEqual(real + 10);
  });

  it("learns no ratio across a compaction: the next is fitted on usages after it (review 56g #6)", () => {
    const meter = new ContextMeter();
    meter.contextLimit = 400_000;
    const first = [textMessage("a", 5_000)];
    meter.added(first);
    meter.recorded({ inputTokens: 3 * meter.estimate + OVERHEAD }, first);
    const grown = [...first, textMessage("b", 40_000)];
    meter.added(grown.slice(1));
    meter.recorded({ inputTokens: 3 * meter.estimate + OVERHEAD }, grown);
    expect(meter.ratio).toBeCloseTo(3, 5);
    // Compacted to a prose summary the provider counts as estimated: a fit across the
    // compaction would put the ratio at (3 × 45k - 10k) / 35k, about 3.6, then back.
    const summary = [textMessage("s", 10_000)];
    meter.replaced(summary);
    meter.recorded({ inputTokens: meter.estimate + OVERHEAD }, summary);
    expect(meter.ratio).toBeCloseTo(3, 5);
  });

  it("takes a ratio from 1 to MAX_TOKEN_RATIO whatever the usages say", () => {
    const meter = new ContextMeter();
    meter.contextLimit = 1_000_000;
    const a = [textMessage("a", 5_000)];
    meter.added(a);
    meter.recorded({ inputTokens: 100_000 }, a);
    const b = [...a, textMessage("b", 20_000)];
    meter.added(b.slice(1));
    // The provider counted less for more messages (a cache left out, a tool list dropped).
    meter.recorded({ inputTokens: 90_000 }, b);
    expect(meter.ratio).toBe(1);
    const c = [...b, textMessage("c", 20_000)];
    meter.added(c.slice(2));
    meter.recorded({ inputTokens: 900_000 }, c);
    expect(meter.ratio).toBe(MAX_TOKEN_RATIO);
  });
});

describe("AgentSession with a provider that counts more than 4 characters a token", () => {
  it("measures the context after a compaction as the provider counts it, and compacts to what it keeps at a ratio of 1", async () => {
    const plain = await agentRun(1);
    for (const ratio of [3, 5]) {
      const { compactions, warnings } = await agentRun(ratio);
      expect(warnings).toEqual([]);
      expect(compactions.length).toBeGreaterThan(2);
      for (const compaction of compactions.slice(1)) {
        // What the provider counts, within a few percent (before: 72% measured where 43% was
        // held at 3, and the whole history but 4 messages removed at 5).
        expect(compaction.measured).toBeGreaterThan(0.97 * compaction.real);
        expect(compaction.measured).toBeLessThan(1.05 * compaction.real);
        expect(compaction.real).toBeGreaterThan(0.4 * 100_000);
        expect(compaction.messages).toBeGreaterThanOrEqual(plain.compactions.at(-1)!.messages - 4);
      }
    }
  });

  it("keeps the ratio and what it was learned from in a snapshot, so a session restored at each request learns it too", async () => {
    let snapshot = new AgentSession({ contextLimit: 100_000 }).toJSON();
    const measured: number[] = [];
    for (let step = 0; step < 4; step += 1) {
      const session = AgentSession.fromJSON(snapshot);
      session.addUserText(`part ${step}: ${"z".repeat(40_000)}`);
      session.recordUsage({ inputTokens: 3 * estimateTokens(session.messages) + OVERHEAD });
      session.addAssistant([{ type: "text", text: "ok" }]);
      measured.push(session.contextUsed);
      snapshot = session.toJSON();
    }
    expect(snapshot.meter.ratio?.value).toBeCloseTo(3, 5);
    const restored = AgentSession.fromJSON(JSON.parse(JSON.stringify(snapshot)));
    expect(restored.contextUsed).toBe(measured.at(-1));
    expect(() =>
      AgentSession.fromJSON({
        ...snapshot,
        meter: { ...snapshot.meter, ratio: { value: 0.5, from: { estimate: 1, tokens: 1 } } },
      }),
    ).toThrow(ValidationError);
  });
});

describe("tokenRatio", () => {
  it("is checked where a compactor is called: a finite number, 1 or more", () => {
    const compactor = new ThresholdCompactor();
    const conversation = new ConversationBuilder().user("hi").build();
    for (const tokenRatio of [0.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => compactor.compact(conversation, new Map(), { tokenRatio })).toThrow(
        /tokenRatio: must be (a finite number, 1 or more|a number)/,
      );
    expect(() => compactor.compact(conversation, new Map(), { tokenRatio: 2 })).not.toThrow();
  });

  it("divides clearAtLeast, in the provider's tokens, into the estimate's", () => {
    const builder = new ConversationBuilder();
    for (let turn = 0; turn < 8; turn += 1)
      builder.user(`task ${turn}`).toolCall({ name: "read", result: "r".repeat(4_000) });
    const conversation = builder.build();
    const compactor = new ThresholdCompactor({
      toolCompaction: "redact",
      keepRecentTurns: 2,
      clearAtLeast: 10_000,
    });
    const context = { contextLimit: 20_000, contextUsed: 19_000 };
    // 6 results of 1,000 tokens: under 10,000 by the estimate, over it at 3 of the provider's a token.
    expect(compactor.compact(conversation, new Map(), context).result.toolResultsRedacted).toBe(0);
    const counted = compactor.compact(conversation, new Map(), { ...context, tokenRatio: 3 });
    expect(counted.result.toolResultsRedacted).toBe(6);
  });

  it("divides a summarizer's maxTranscriptTokens: the request the summarizer gets holds what it counts", async () => {
    const builder = new ConversationBuilder();
    for (let turn = 0; turn < 200; turn += 1)
      builder.user(`request ${turn}`).toolCall({ name: "read", result: "x".repeat(4000) });
    const client = new MockLlmClient();
    const compactor = new LLMCompactor(client, { maxTranscriptTokens: 20_000 });
    await compactor.compactAsync(builder.build(), new Map(), { tokenRatio: 4 });
    const longest = Math.max(...client.requests.map((request) => request.prompt.length));
    // Each request within 20,000 of the provider's tokens: 5,000 by the estimate (78k
    // characters, 4 of the provider's tokens each, without the ratio).
    expect(longest).toBeLessThanOrEqual((20_000 / 4) * CHARS_PER_TOKEN);
  });
});

describe("a summary's transcript request", () => {
  it("stays within the window the session knows, less the summary, where that leaves room for one", async () => {
    const builder = new ConversationBuilder();
    for (let turn = 0; turn < 40; turn += 1)
      builder.user(`request ${turn}`).toolCall({ name: "read", result: "x".repeat(2000) });
    const conversation = builder.build();
    const longest = async (contextLimit: number) => {
      const client = new MockLlmClient();
      const compactor = new LLMCompactor(client, { maxSummaryTokens: 1000 });
      await compactor.compactAsync(conversation, new Map(), {
        contextLimit,
        contextUsed: contextLimit,
        trigger: "manual",
      });
      return Math.max(...client.requests.map((request) => request.prompt.length));
    };
    // 6,000 - 1,000 tokens a request (about 20k characters), where the whole transcript is 84k.
    expect(await longest(6_000)).toBeLessThanOrEqual(5_000 * CHARS_PER_TOKEN);
    // A window that leaves less than the summary is another model's: the transcript in one.
    expect(await longest(1_500)).toBeGreaterThan(80_000);
  });
});

/**
 * A session fed results of `size` tokens as the provider counts them, `ratio` to each estimated
 * one (plus a system prompt of 20k in a 100k window), its usage reported as the provider counts
 * it: how many of `steps` requests it compacted before.
 */
async function compactionsAt(ratio: number, size = 12_000, steps = 60): Promise<number> {
  const session = new AgentSession({ contextLimit: 100_000 });
  let compactions = 0;
  session.addUserText("Go through the logs.");
  for (let step = 0; step < steps; step += 1) {
    if ((await session.maybeCompact()).compacted) compactions += 1;
    const sent = 20_000 + Math.round(ratio * estimateTokens(session.messages));
    expect(sent).toBeLessThanOrEqual(100_000);
    session.addAssistant([{ type: "tool_use", id: `t${step}`, name: "log", input: { n: step } }]);
    session.recordUsage({ inputTokens: sent, outputTokens: 20 });
    const chars = Math.round((size / ratio) * 4);
    session.addToolResults([
      { type: "tool_result", toolUseId: `t${step}`, content: "l".repeat(chars) },
    ]);
  }
  return compactions;
}

describe("AgentSession planning at the provider's ratio", () => {
  it("compacts dense content as often as prose of the same count, not at every request (review 56g #2)", async () => {
    const prose = await compactionsAt(1);
    for (const ratio of [2.5, 4]) {
      const dense = await compactionsAt(ratio);
      expect(dense).toBeLessThanOrEqual(Math.ceil(1.2 * prose));
    }
  });

  it("clamps a text to its share of the window as the provider counts it (review 56g #3)", async () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("Read the dumps.");
    for (let step = 0; step < 3; step += 1) {
      session.addAssistant([{ type: "tool_use", id: `t${step}`, name: "dump", input: {} }]);
      session.recordUsage({ inputTokens: 2_000 + 4 * estimateTokens(session.messages) });
      session.addToolResults([
        { type: "tool_result", toolUseId: `t${step}`, content: "0".repeat(20_000 * (step + 1)) },
      ]);
    }
    expect(session.toJSON().meter.ratio?.value).toBeGreaterThan(3.5);
    session.addAssistant([{ type: "tool_use", id: "big", name: "dump", input: {} }]);
    // 25k estimated tokens, 100k as counted: the whole window.
    session.addToolResults([
      { type: "tool_result", toolUseId: "big", content: "f".repeat(100_000) },
    ]);
    const last = session.messages.at(-1)!.content[0]!;
    const text =
      last.type === "tool_result" && typeof last.content === "string" ? last.content : "";
    // Its share: a quarter of the window as counted, 25k, about 6.3k estimated tokens.
    expect(4 * Math.ceil(text.length / 4)).toBeLessThanOrEqual((0.25 * 100_000 * 4) / 3.5);
  });

  it("restores a measure above the window as it was (review 56g #5)", () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("a".repeat(40_000));
    session.recordUsage({ inputTokens: 2_000 + 3 * estimateTokens(session.messages) });
    session.addAssistant([{ type: "text", text: "b".repeat(40_000) }]);
    // Three texts of 20k estimated tokens each, under the clamp's quarter of the window.
    for (const text of ["c", "d", "e"]) {
      session.addUserText(text.repeat(80_000));
      session.addAssistant([{ type: "text", text: "noted" }]);
    }
    session.addUserText("Go on.");
    session.recordUsage({ inputTokens: 2_000 + 3 * estimateTokens(session.messages) });
    session.addAssistant([{ type: "text", text: "ok" }]);
    // Beyond the estimate: 2k and twice the 80k estimated, more than the window.
    expect(session.toJSON().meter.correction).toBeGreaterThan(100_000);
    const restored = AgentSession.fromJSON(JSON.parse(JSON.stringify(session.toJSON())));
    expect(restored.contextUsed).toBe(session.contextUsed);
  });
});
