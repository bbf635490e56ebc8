import { describe, expect, it } from "vitest";
import {
  AgentSession,
  CompactionError,
  type CompactionErrorCode,
  type CompactionEvent,
  LLMCompactor,
  type Message,
  ThresholdCompactor,
} from "../../src/index.js";
import { ConversationBuilder, MockLlmClient, type MockReply } from "../../src/testing/index.js";
import { manualTimers } from "../support/manual-timers.js";

/** Lets pending promise callbacks and I/O-free tasks run (no wall-clock wait). */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function history(): Message[] {
  const builder = new ConversationBuilder({ sessionId: "faults" });
  for (let turn = 1; turn <= 5; turn += 1) {
    builder
      .user(`request ${turn}`)
      .toolCall({
        name: "read_file",
        result: `contents ${turn} `.repeat(60),
        compactSummary: `file ${turn}`,
      })
      .assistant(`answer ${turn} `.repeat(20));
  }
  return builder.build();
}

interface Setup {
  session: AgentSession;
  client: MockLlmClient;
  events: CompactionEvent[];
  timers: ReturnType<typeof manualTimers>;
}

function setup(
  replies: MockReply[],
  options: { withThreshold?: boolean; defaultReply?: MockReply } = {},
): Setup {
  const client = new MockLlmClient({
    replies,
    ...(options.defaultReply ? { defaultReply: options.defaultReply } : {}),
  });
  const timers = manualTimers();
  const events: CompactionEvent[] = [];
  const session = new AgentSession({
    contextLimit: 2000,
    sessionId: "faults",
    compactor: options.withThreshold ? new ThresholdCompactor({ keepRecentTurns: 1 }) : false,
    // Placeholders as the compactor writes them (no recall handle), to compare with it alone.
    archive: false,
    llmCompactor: new LLMCompactor(client, {
      threshold: 0.1,
      keepRecentTurns: 1,
      summaryTimeoutMs: 5000,
      timers: timers.timers,
    }),
    onEvent: (event) => events.push(event),
  });
  session.append(...history());
  session.recordUsage({ inputTokens: 1900 });
  return { session, client, events, timers };
}

/** The history and everything derived from it (the breaker's count aside, which failures change). */
const snapshot = (session: AgentSession) => {
  const { consecutiveFailures: _, ...rest } = session.toJSON();
  return JSON.parse(JSON.stringify(rest)) as unknown;
};
const failures = (events: CompactionEvent[]) =>
  events.filter((event) => event.type === "compaction_failed");

interface Fault {
  name: string;
  code: CompactionErrorCode;
  replies: MockReply[];
  /** Drives the fault once the summary request is out (fire the timer, abort). */
  drive?: (setup: Setup, abort: AbortController) => void;
}

const hang: MockReply = { hang: true };
const FAULTS: Fault[] = [
  {
    name: "a summariser error (429)",
    code: "llm_error",
    replies: [Object.assign(new Error("429 rate limited"), { status: 429 })],
  },
  {
    name: "a summariser error (529 overloaded)",
    code: "llm_error",
    replies: [new Error("529 overloaded")],
  },
  {
    name: "a non-Error rejection",
    code: "llm_error",
    replies: [() => Promise.reject("socket hang up")],
  },
  {
    name: "a synchronous throw",
    code: "llm_error",
    replies: [
      () => {
        throw new TypeError("boom");
      },
    ],
  },
  {
    name: "a non-string summary",
    code: "llm_error",
    replies: [(() => 42) as unknown as MockReply],
  },
  { name: "an empty summary", code: "empty_summary", replies: [""] },
  { name: "a whitespace summary", code: "empty_summary", replies: [" \n\t  "] },
  {
    // A client that does not pass maxTokens on (review 55b #5: it was dropped as a skip, unreported).
    name: "a summary far over maxSummaryTokens",
    code: "summary_too_long",
    replies: ["summary ".repeat(20_000)],
  },
  { name: "a timeout", code: "timeout", replies: [hang], drive: ({ timers }) => timers.fireAll() },
  {
    name: "an abort",
    code: "aborted",
    replies: [hang],
    drive: (_, abort) => abort.abort(new Error("user pressed Esc")),
  },
];

async function driveWhenAsked(setup: Setup, fault: Fault, abort: AbortController) {
  if (fault.drive === undefined) return;
  while (setup.client.callCount === 0) await flush();
  await flush();
  fault.drive(setup, abort);
}

describe("summariser faults: history unchanged, failure reported once", () => {
  for (const fault of FAULTS) {
    it(`maybeCompact survives ${fault.name}: report.error ${fault.code}, one compaction_failed`, async () => {
      const state = setup(fault.replies);
      const before = snapshot(state.session);
      const abort = new AbortController();
      const run = state.session.maybeCompact({ signal: abort.signal });
      await driveWhenAsked(state, fault, abort);
      const report = await run;
      expect(report.error?.code).toBe(fault.code);
      expect(CompactionError.isInstance(report.error)).toBe(true);
      expect(report.compacted).toBe(false);
      expect(snapshot(state.session)).toEqual(before);
      expect(failures(state.events)).toHaveLength(1);
      expect(failures(state.events)[0]).toMatchObject({ trigger: "auto", strategy: "llm" });
      expect(state.session.isCompacting).toBe(false);
    });

    it(`forceCompact rejects on ${fault.name} with ${fault.code}, all or nothing`, async () => {
      const state = setup(fault.replies, { withThreshold: true });
      const before = snapshot(state.session);
      const abort = new AbortController();
      const run = state.session.forceCompact({ signal: abort.signal });
      await driveWhenAsked(state, fault, abort);
      const error = await run.then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(CompactionError.isInstance(error) && error.code).toBe(fault.code);
      // The threshold stage had run too: nothing of it is applied either.
      expect(snapshot(state.session)).toEqual(before);
      expect(failures(state.events)).toHaveLength(1);
    });
  }

  it("a timeout aborts the summariser's request (no dangling HTTP call)", async () => {
    const state = setup([hang]);
    const run = state.session.maybeCompact();
    await driveWhenAsked(
      state,
      FAULTS.find((fault) => fault.code === "timeout")!,
      new AbortController(),
    );
    await run;
    expect(state.client.lastRequest?.signal?.aborted).toBe(true);
  });

  it("with a masking stage first, a failed summary keeps the masking (reported once) and nothing else", async () => {
    const masked = setup(["unused"], { withThreshold: true });
    // What the masking stage alone does to this history.
    const expected = new ThresholdCompactor({ keepRecentTurns: 1 }).compact(
      masked.session.messages,
      masked.session.compactSummaries,
    ).conversation;
    const state = setup([new Error("503")], { withThreshold: true });
    const report = await state.session.maybeCompact();
    expect(report.error?.code).toBe("llm_error");
    expect(JSON.parse(JSON.stringify(state.session.messages))).toEqual(
      JSON.parse(JSON.stringify(expected)),
    );
    expect(failures(state.events)).toHaveLength(1);
  });

  it("messages appended while a summary fails are all kept, in order", async () => {
    let fail: (error: Error) => void = () => {};
    const state = setup([
      () =>
        new Promise<string>((_, reject) => {
          fail = reject;
        }),
    ]);
    // Below the last resort's line even with the message appended meanwhile: above it, a
    // failed summary is followed by trimming (test/faults/after-failures.test.ts).
    state.session.recordUsage({ inputTokens: 1800 });
    const before = state.session.messages.map((message) => message.id);
    const run = state.session.maybeCompact();
    while (state.client.callCount === 0) await flush();
    const added = state.session.addUserText("while it runs");
    fail(new Error("500"));
    const report = await run;
    expect(report.error?.code).toBe("llm_error");
    expect(state.session.messages.map((message) => message.id)).toEqual([...before, added.id]);
  });
});

describe("a summary that would not shrink the history is a skip, not a failure", () => {
  // Within maxSummaryTokens (2048), yet longer than the folded part (one far over it fails:
  // summary_too_long, in FAULTS).
  const tooLarge = "summary ".repeat(1_000);

  it("maybeCompact reports a skip, changes nothing, and leaves the breaker alone", async () => {
    const state = setup([tooLarge, tooLarge, tooLarge, tooLarge]);
    const before = snapshot(state.session);
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const report = await state.session.maybeCompact();
      expect(report.error).toBeUndefined();
      expect(report.compacted).toBe(false);
    }
    expect(snapshot(state.session)).toEqual(before);
    expect(failures(state.events)).toHaveLength(0);
    expect(state.session.toJSON().consecutiveFailures).toBe(0);
    // Four attempts, four requests: the breaker never opened.
    expect(state.client.callCount).toBe(4);
    const skips = state.events.filter((event) => event.type === "compaction_skipped");
    expect(skips).toHaveLength(4);
    expect(skips[0]).toMatchObject({
      reason: "nothing_to_compact",
      strategy: "llm",
      detail: expect.stringMatching(/would not shrink/),
    });
  });

  it("between failures, leaves the count where it was: the breaker still opens at the third", async () => {
    const state = setup([new Error("1"), new Error("2"), tooLarge, new Error("3")]);
    const counts: number[] = [];
    for (let attempt = 0; attempt < 4; attempt += 1) {
      await state.session.maybeCompact();
      counts.push(state.session.toJSON().consecutiveFailures);
    }
    expect(counts).toEqual([1, 2, 2, 3]);
    await state.session.maybeCompact();
    expect(state.client.callCount).toBe(4);
    expect(state.events.at(-1)).toMatchObject({
      type: "compaction_skipped",
      reason: "circuit_open",
    });
  });

  it("forceCompact resolves with nothing compacted", async () => {
    const state = setup([tooLarge]);
    const before = snapshot(state.session);
    const result = await state.session.forceCompact();
    expect(result.turnsCompacted).toBe(0);
    expect(snapshot(state.session)).toEqual(before);
    expect(failures(state.events)).toHaveLength(0);
  });
});

describe("circuit breaker: automatic summaries pause after 3 failures in a row", () => {
  const calls = (client: MockLlmClient) => client.callCount;

  it("stops calling the summariser after 3 failures, reporting compaction_skipped instead", async () => {
    const state = setup([new Error("1"), new Error("2"), new Error("3")]);
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const report = await state.session.maybeCompact();
      expect(report.error?.code).toBe("llm_error");
      expect(failures(state.events).at(-1)).toMatchObject({ consecutiveFailures: attempt });
    }
    const before = snapshot(state.session);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const report = await state.session.maybeCompact();
      expect(report.error).toBeUndefined();
      expect(report.compacted).toBe(false);
    }
    expect(calls(state.client)).toBe(3);
    expect(state.events.filter((event) => event.type === "compaction_skipped")).toHaveLength(5);
    expect(state.events.filter((event) => event.type === "compaction_skipped")[0]).toMatchObject({
      reason: "circuit_open",
      strategy: "llm",
    });
    expect(failures(state.events)).toHaveLength(3);
    expect(snapshot(state.session)).toEqual(before);
  });

  it("a successful forceCompact closes the circuit; automatic summaries resume", async () => {
    const state = setup([new Error("1"), new Error("2"), new Error("3"), "forced summary"], {
      defaultReply: new Error("again"),
    });
    for (let attempt = 0; attempt < 3; attempt += 1) await state.session.maybeCompact();
    await state.session.maybeCompact();
    expect(calls(state.client)).toBe(3);
    await state.session.forceCompact();
    expect(calls(state.client)).toBe(4);
    expect(state.session.toJSON().consecutiveFailures).toBe(0);
    // Grow the history again so an automatic summary is due, and check it is attempted.
    for (const message of history())
      state.session.append({
        ...message,
        id: `more-${message.id}`,
        turnId: { owner: "u", number: message.turnId.number + 10 },
        content: message.content.map((block) =>
          block.type === "tool_use"
            ? { ...block, id: `more-${block.id}` }
            : block.type === "tool_result"
              ? { ...block, toolUseId: `more-${block.toolUseId}` }
              : block,
        ),
      });
    state.session.recordUsage({ inputTokens: 1990 });
    const report = await state.session.maybeCompact();
    expect(calls(state.client)).toBe(5);
    expect(report.error?.code).toBe("llm_error");
  });

  it("a failed forceCompact neither counts nor resets (decision: only a success resets)", async () => {
    const state = setup([new Error("1"), new Error("2"), new Error("3"), new Error("forced")]);
    for (let attempt = 0; attempt < 3; attempt += 1) await state.session.maybeCompact();
    await expect(state.session.forceCompact()).rejects.toMatchObject({ code: "llm_error" });
    expect(state.session.toJSON().consecutiveFailures).toBe(3);
    await state.session.maybeCompact();
    expect(calls(state.client)).toBe(4);
    expect(state.events.at(-1)).toMatchObject({ type: "compaction_skipped" });
  });

  it("an automatic success resets the count: failures must be consecutive", async () => {
    const state = setup([
      new Error("1"),
      new Error("2"),
      "ok summary",
      new Error("3"),
      new Error("4"),
    ]);
    await state.session.maybeCompact();
    await state.session.maybeCompact();
    const success = await state.session.maybeCompact();
    expect(success.compacted).toBe(true);
    expect(state.session.toJSON().consecutiveFailures).toBe(0);
  });

  it("aborts by the caller do not trip the breaker", async () => {
    const state = setup([hang, hang, hang, hang]);
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const abort = new AbortController();
      const run = state.session.maybeCompact({ signal: abort.signal });
      while (state.client.callCount === attempt) await flush();
      abort.abort();
      expect((await run).error?.code).toBe("aborted");
    }
    expect(state.session.toJSON().consecutiveFailures).toBe(0);
    expect(state.events.some((event) => event.type === "compaction_skipped")).toBe(false);
  });

  it("the breaker state survives toJSON/fromJSON", async () => {
    const state = setup([new Error("1"), new Error("2"), new Error("3")]);
    for (let attempt = 0; attempt < 3; attempt += 1) await state.session.maybeCompact();
    const client = new MockLlmClient();
    const events: CompactionEvent[] = [];
    const restored = AgentSession.fromJSON(state.session.toJSON(), {
      compactor: false,
      llmCompactor: new LLMCompactor(client, { keepRecentTurns: 1 }),
      onEvent: (event) => events.push(event),
    });
    restored.recordUsage({ inputTokens: 1900 });
    await restored.maybeCompact();
    expect(client.callCount).toBe(0);
    expect(events.map((event) => event.type)).toEqual(["compaction_skipped"]);
  });
});
