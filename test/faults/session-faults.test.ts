import { describe, expect, it } from "vitest";
import { toAnthropicMessages } from "../../src/anthropic/index.js";
import {
  AgentSession,
  type AgentSessionOptions,
  type AsyncCompactor,
  CompactionError,
  type CompactionEvent,
  type CompactionOutput,
  type Compactor,
  type JsonObject,
  type Message,
  type SessionSnapshot,
  ValidationError,
  validateConversation,
} from "../../src/index.js";
import { type CompactionArchive, MemoryArchive } from "../../src/store/index.js";

const LIMIT = 10_000;
const never = <T>(): Promise<T> => new Promise<T>(() => {});
const RESULT = { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 1 };

/** `turns` exchanges of about 1,000 tokens each, then the latest request. */
function fill(session: AgentSession, turns: number): void {
  for (let turn = 0; turn < turns; turn += 1) {
    session.addUserText(`question ${turn} ${"q".repeat(4_000)}`);
    session.addAssistant([{ type: "text", text: `answer ${turn}` }]);
  }
  session.addUserText("the latest request");
}

/** A compactor (always due) that drops the oldest exchange. */
const dropOldest = (conversation: readonly Message[]): CompactionOutput => ({
  conversation: conversation.slice(2),
  result: RESULT,
});

function syncCompactor(compact = dropOldest): Compactor {
  return { isAsync: false, shouldCompact: () => true, compact };
}

/** An async compactor (always due) whose `compactAsync` is `run`. */
function asyncCompactor(run: AsyncCompactor["compactAsync"]): AsyncCompactor {
  return {
    isAsync: true,
    shouldCompact: () => true,
    compact: (conversation) => ({ conversation: [...conversation], result: RESULT }),
    compactAsync: run,
  };
}

function session(options: Partial<AgentSessionOptions> = {}, turns = 6) {
  const events: CompactionEvent[] = [];
  const created = new AgentSession({
    contextLimit: LIMIT,
    compactor: syncCompactor(),
    onEvent: (event) => events.push(event),
    ...options,
  });
  fill(created, turns);
  return { session: created, events };
}

const failed = (events: CompactionEvent[]) =>
  events.filter((event) => event.type === "compaction_failed");

describe("code that never settles ends as a CompactionError", () => {
  it("a beforeCompact hook: timeout after hookTimeoutMs, and the next call works", async () => {
    let hang = true;
    const { session: s } = session({
      hookTimeoutMs: 5,
      beforeCompact: () => (hang ? never() : undefined),
    });
    const before = s.messages;
    const report = await s.maybeCompact();
    expect(report.error?.code).toBe("timeout");
    expect(report.error?.message).toMatch(/beforeCompact/);
    expect(s.messages).toBe(before);
    await expect(s.forceCompact()).rejects.toMatchObject({ code: "timeout" });
    hang = false;
    const next = await s.maybeCompact();
    expect(next.error).toBeUndefined();
    expect(next.compacted).toBe(true);
  });

  it("a beforeCompact hook: the caller's signal ends it as aborted", async () => {
    const { session: s } = session({ beforeCompact: () => never() });
    const controller = new AbortController();
    const pending = s.maybeCompact({ signal: controller.signal });
    controller.abort();
    expect((await pending).error?.code).toBe("aborted");
    const manual = new AbortController();
    const forced = s.forceCompact({ signal: manual.signal });
    manual.abort();
    await expect(forced).rejects.toMatchObject({ code: "aborted" });
  });

  it("a custom compactAsync: timeout after compactorTimeoutMs, its signal fired", async () => {
    const signals: AbortSignal[] = [];
    let hang = true;
    const { session: s, events } = session({
      compactor: false,
      llmCompactor: asyncCompactor((conversation, _summaries, options) => {
        if (options?.signal !== undefined) signals.push(options.signal);
        return hang ? never() : Promise.resolve(dropOldest(conversation));
      }),
      compactorTimeoutMs: 5,
    });
    const report = await s.maybeCompact();
    expect(report.error?.code).toBe("timeout");
    expect(CompactionError.isInstance(report.error)).toBe(true);
    expect(signals[0]?.aborted).toBe(true);
    expect(failed(events)).toHaveLength(1);
    hang = false;
    expect((await s.maybeCompact()).compacted).toBe(true);
  });

  it("a custom compactAsync: the caller's signal ends it as aborted", async () => {
    const { session: s } = session({
      compactor: false,
      llmCompactor: asyncCompactor(() => never()),
    });
    const controller = new AbortController();
    const pending = s.maybeCompact({ signal: controller.signal });
    controller.abort();
    expect((await pending).error?.code).toBe("aborted");
  });

  it("an archive put: timeout after archiveTimeoutMs, nothing lands, the next call works", async () => {
    let hang = true;
    const memory = new MemoryArchive();
    const archive: CompactionArchive = {
      put: (sessionId, records) => (hang ? never() : memory.put(sessionId, records)),
      get: (sessionId, handle) => memory.get(sessionId, handle),
    };
    const { session: s } = session({ archive, archiveTimeoutMs: 5 });
    const before = s.messages;
    const report = await s.maybeCompact();
    expect(report.error?.code).toBe("timeout");
    expect(report.error?.message).toMatch(/archive/);
    expect(s.messages).toBe(before);
    hang = false;
    expect((await s.maybeCompact()).compacted).toBe(true);
  });

  it("an archive put: the caller's signal ends it as aborted", async () => {
    const archive: CompactionArchive = { put: () => never(), get: async () => undefined };
    const { session: s } = session({ archive });
    const controller = new AbortController();
    const pending = s.maybeCompact({ signal: controller.signal });
    // The abort lands while the put is pending (the compactor is synchronous).
    await Promise.resolve();
    controller.abort();
    expect((await pending).error?.code).toBe("aborted");
  });
});

describe("code that never settles, after and around a summary", () => {
  it("an afterCompact hook: logged after hookTimeoutMs, the call resolves", async () => {
    const warnings: string[] = [];
    const { session: s } = session({
      hookTimeoutMs: 5,
      afterCompact: () => never(),
      logger: { warn: (message) => warnings.push(message) },
    });
    expect((await s.maybeCompact()).compacted).toBe(true);
    expect(warnings).toEqual(["agent-compaction: the afterCompact hook did not settle in time"]);
  });

  it("an archive get (the originals a summary reads): timeout after archiveTimeoutMs", async () => {
    let hang = true;
    const memory = new MemoryArchive();
    const archive: CompactionArchive = {
      put: (sessionId, records) => memory.put(sessionId, records),
      get: (sessionId, handle) => (hang ? never() : memory.get(sessionId, handle)),
    };
    const s = new AgentSession({
      contextLimit: LIMIT,
      archive,
      archiveTimeoutMs: 5,
      // Drops the oldest step (request, call, result, answer).
      llmCompactor: asyncCompactor(async (conversation) => ({
        conversation: conversation.slice(4),
        result: RESULT,
      })),
    });
    // Past the 8 newest tool uses the default keeps whole, enough to mask above its minimum gain.
    for (let turn = 0; turn < 12; turn += 1) {
      s.addUserText(`step ${turn}`);
      s.addAssistant([{ type: "tool_use", id: `toolu_${turn}`, name: "read", input: {} }]);
      s.addToolResults([
        { type: "tool_result", toolUseId: `toolu_${turn}`, content: "r".repeat(3_000) },
      ]);
      s.addAssistant([{ type: "text", text: `done ${turn}` }]);
    }
    s.addUserText("the latest request");
    const report = await s.maybeCompact();
    // The masking landed (its placeholders name recall handles); the summary could not read them.
    expect(report.results.map((step) => step.strategy)).toEqual(["threshold"]);
    expect(report.error?.code).toBe("timeout");
    expect(report.error?.message).toMatch(/archive's get/);
    hang = false;
    expect((await s.maybeCompact()).error).toBeUndefined();
  });
});

describe("an archive that throws", () => {
  const throwing: CompactionArchive = {
    put: () => Promise.reject(new Error("disk full")),
    get: async () => undefined,
  };

  it("is a compaction_failed archive_error; the conversation is unchanged", async () => {
    const { session: s, events } = session({ archive: throwing });
    const before = s.messages;
    const report = await s.maybeCompact();
    expect(report.error?.code).toBe("archive_error");
    expect(report.error?.message).toMatch(/disk full/);
    expect(report.compacted).toBe(false);
    expect(s.messages).toBe(before);
    expect(
      failed(events).map((event) => event.type === "compaction_failed" && event.error.code),
    ).toEqual(["archive_error"]);
    await expect(s.forceCompact()).rejects.toMatchObject({ code: "archive_error" });
    expect(s.messages).toBe(before);
  });

  it("the last resort still runs (without the archive) and the request fits", async () => {
    const { session: s } = session({ archive: throwing }, 11);
    expect(s.contextUsed).toBeGreaterThan(LIMIT);
    const report = await s.maybeCompact();
    expect(report.error?.code).toBe("archive_error");
    expect(report.trimmed?.length).toBeGreaterThan(0);
    expect(report.overWindow).toBe(false);
    expect(s.contextUsed).toBeLessThanOrEqual(LIMIT);
    expect(validateConversation(s.messages)).toEqual([]);
    expect(s.messages.at(-1)?.content).toEqual([{ type: "text", text: "the latest request" }]);
  });
});

describe("the circuit breaker", () => {
  /** Two failures in a row open the breaker for a minute; `run` is the summarizer's compaction. */
  const breakerOptions = (clock: () => Date, run: AsyncCompactor["compactAsync"]) => ({
    compactor: false as const,
    maxConsecutiveFailures: 2,
    circuitCooldownMs: 60_000,
    clock,
    llmCompactor: asyncCompactor(run),
  });

  function breaking() {
    let now = Date.parse("2026-01-01T00:00:00Z");
    let fail = true;
    let calls = 0;
    const made = session(
      breakerOptions(
        () => new Date(now),
        async (conversation) => {
          calls += 1;
          if (fail) throw new CompactionError("llm_error", "the model is down");
          return dropOldest(conversation);
        },
      ),
    );
    return {
      ...made,
      advance: (ms: number) => {
        now += ms;
      },
      heal: () => {
        fail = false;
      },
      get calls() {
        return calls;
      },
    };
  }
  const skippedOpen = (events: CompactionEvent[]) =>
    events.filter((event) => event.type === "compaction_skipped" && event.reason === "circuit_open")
      .length;

  it("opens after the failures, stays open for the cooldown, then tries once (half-open)", async () => {
    const run = breaking();
    await run.session.maybeCompact();
    await run.session.maybeCompact();
    expect(run.calls).toBe(2);
    await run.session.maybeCompact();
    expect(run.calls).toBe(2);
    expect(skippedOpen(run.events)).toBe(1);
    run.advance(59_999);
    await run.session.maybeCompact();
    expect(run.calls).toBe(2);
    run.advance(1);
    await run.session.maybeCompact(); // half-open: tried once, fails, open again
    expect(run.calls).toBe(3);
    await run.session.maybeCompact();
    expect(run.calls).toBe(3);
    run.advance(60_000);
    run.heal();
    const report = await run.session.maybeCompact(); // half-open: succeeds, closed
    expect(report.compacted).toBe(true);
    expect(run.session.toJSON().consecutiveFailures).toBe(0);
  });

  it("a snapshot carries when it opened: restored, it stays open for the rest of the cooldown", async () => {
    const run = breaking();
    await run.session.maybeCompact();
    await run.session.maybeCompact();
    const snapshot = JSON.parse(JSON.stringify(run.session.toJSON())) as SessionSnapshot;
    expect(snapshot.consecutiveFailures).toBe(2);
    expect(snapshot.circuitOpenedAt).toBe("2026-01-01T00:00:00.000Z");
    const restore = (from: SessionSnapshot, at: string) => {
      let calls = 0;
      const restored = AgentSession.fromJSON(
        from,
        breakerOptions(
          () => new Date(at),
          async (conversation) => {
            calls += 1;
            return dropOldest(conversation);
          },
        ),
      );
      return { restored, calls: () => calls };
    };
    const early = restore(snapshot, "2026-01-01T00:00:59.000Z");
    await early.restored.maybeCompact();
    expect(early.calls()).toBe(0);
    const later = restore(snapshot, "2026-01-01T00:01:00.000Z");
    expect((await later.restored.maybeCompact()).compacted).toBe(true);
    expect(later.calls()).toBe(1);
    expect(later.restored.toJSON()).not.toHaveProperty("circuitOpenedAt");
    // Without the time (an older snapshot) the restored breaker is half-open, never open for ever.
    const { circuitOpenedAt: _openedAt, ...older } = snapshot;
    const old = restore(older, "2026-01-01T00:00:01.000Z");
    await old.restored.maybeCompact();
    expect(old.calls()).toBe(1);
  });
});

describe("reported usage far below the local estimate", () => {
  it("a usage of 0 does not drop the measure: a request 30% over the window is trimmed", async () => {
    const { session: s } = session({ compactor: false }, 12);
    const estimate = s.contextUsed;
    expect(estimate).toBeGreaterThan(1.2 * LIMIT);
    s.recordUsage({ inputTokens: 0, outputTokens: 0 });
    expect(s.contextUsed).toBe(estimate);
    const report = await s.maybeCompact();
    expect(report.trimmed?.length).toBeGreaterThan(0);
    expect(s.contextUsed).toBeLessThanOrEqual(LIMIT);
  });

  it("without the last resort, it is reported (overWindow)", async () => {
    const { session: s } = session({ compactor: false, trimOnOverflow: false }, 12);
    s.recordUsage({ inputTokens: 3, cacheReadInputTokens: 0 });
    const report = await s.maybeCompact();
    expect(report.overWindow).toBe(true);
  });

  it("a usage at half the estimate or more is trusted", () => {
    const { session: s } = session({ compactor: false }, 4);
    const reported = Math.ceil(s.contextUsed * 0.6);
    s.recordUsage({ inputTokens: reported });
    expect(s.contextUsed).toBe(reported);
  });
});

describe("millisecond options above 2^31 - 1 are refused", () => {
  const FIELDS = ["hookTimeoutMs", "compactorTimeoutMs", "archiveTimeoutMs", "circuitCooldownMs"];
  it.each(FIELDS)("%s", (field) => {
    const make = (value: number) => () =>
      new AgentSession({ contextLimit: LIMIT, [field]: value } as AgentSessionOptions);
    let error: unknown;
    try {
      make(2 ** 31)();
    } catch (caught) {
      error = caught;
    }
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues[0]?.path).toEqual([field]);
    expect((error as Error).message).toMatch(new RegExp(`${field}: must be at most 2147483647`));
    expect(make(0)).toThrow(ValidationError);
    expect(make(2 ** 31 - 1)).not.toThrow();
  });
});

/** An object nested `depth` levels deep: `{ a: { a: … { a: 1 } } }`. */
function nested(depth: number): JsonObject {
  let value: JsonObject = { a: 1 };
  for (let level = 1; level < depth; level += 1) value = { a: value };
  return value;
}

describe("malformed calls get typed errors", () => {
  it("addUserText(text, null) is refused and appends nothing", () => {
    const s = new AgentSession({ contextLimit: LIMIT });
    expect(() => s.addUserText("hi", null as never)).toThrow(ValidationError);
    expect(s.messages).toHaveLength(0);
  });

  it("a __proto__ key next to an undefined field is accepted, kept as an own key", () => {
    const s = new AgentSession({ contextLimit: LIMIT });
    s.addUserText("go");
    const input = JSON.parse('{"__proto__": {"polluted": true}, "path": "a.ts"}') as JsonObject;
    const message = s.addAssistant([
      { type: "tool_use", id: "toolu_1", name: "read", input, extra: undefined } as never,
    ]);
    const block = message.content[0];
    expect(block?.type === "tool_use" && Object.hasOwn(block.input, "__proto__")).toBe(true);
    expect(block?.type === "tool_use" && Object.getPrototypeOf(block.input)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("tool input nested 10,000 deep is a ValidationError naming the depth limit", () => {
    const s = new AgentSession({ contextLimit: LIMIT });
    s.addUserText("go");
    let error: unknown;
    try {
      s.addAssistant([{ type: "tool_use", id: "toolu_1", name: "t", input: nested(10_000) }]);
    } catch (caught) {
      error = caught;
    }
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/nests deeper than 256 levels/);
    expect(s.messages).toHaveLength(1);
  });

  it("input at the depth limit is accepted, and its snapshot restores", () => {
    const s = new AgentSession({ contextLimit: LIMIT });
    s.addUserText("go");
    s.addAssistant([{ type: "tool_use", id: "toolu_1", name: "t", input: nested(256) }]);
    const restored = AgentSession.fromJSON(JSON.parse(JSON.stringify(s.toJSON())));
    expect(restored.messages).toEqual(s.messages);
    s.addToolResults([{ type: "tool_result", toolUseId: "toolu_1", content: "done" }]);
    expect(() =>
      s.addAssistant([{ type: "tool_use", id: "toolu_2", name: "t", input: nested(257) }]),
    ).toThrow(/nests deeper than 256 levels/);
  });
});

describe("a custom compactor's output is checked as input is", () => {
  async function refused(
    compact: (conversation: readonly Message[]) => CompactionOutput,
    pattern: RegExp,
  ) {
    const { session: s } = session({ compactor: syncCompactor(compact) });
    const before = s.messages;
    const report = await s.maybeCompact();
    expect(report.error?.code).toBe("compactor_error");
    expect(ValidationError.isInstance(report.error?.cause)).toBe(true);
    expect(report.error?.message).toMatch(pattern);
    expect(s.messages).toBe(before);
    await expect(s.forceCompact()).rejects.toMatchObject({ code: "compactor_error" });
    expect(s.messages).toBe(before);
  }

  it("empty", () => refused(() => ({ conversation: [], result: RESULT }), /must not be empty/));

  it("a tool result orphaned", () =>
    refused((conversation) => {
      const [first, ...rest] = conversation as Message[];
      const orphan = {
        ...first,
        content: [{ type: "tool_result", toolUseId: "toolu_gone", content: "x", isError: false }],
      } as Message;
      return { conversation: [orphan, ...rest], result: RESULT };
    }, /orphan_tool_result/));

  it("the latest request dropped", () =>
    refused(
      (conversation) => ({ conversation: conversation.slice(0, -2), result: RESULT }),
      /dropped the latest request/,
    ));
});

describe("nothing a caller holds changes the history", () => {
  const deeplyFrozen = (value: unknown): boolean => {
    if (typeof value !== "object" || value === null || value instanceof Date) return true;
    return Object.isFrozen(value) && Object.values(value).every(deeplyFrozen);
  };

  it("tool input is copied on the way in and frozen: the caller's object and a request stay apart", () => {
    const s = new AgentSession({ contextLimit: LIMIT });
    s.addUserText("go");
    const input: JsonObject = { path: "a.ts", lines: [1, 2] };
    s.addAssistant([{ type: "tool_use", id: "toolu_1", name: "read", input }]);
    input["path"] = "changed.ts";
    (input["lines"] as number[]).push(3);
    const request = toAnthropicMessages(s.messages).at(-1);
    const [block] = (request?.content ?? []) as { input?: Record<string, unknown> }[];
    expect(() => {
      (block?.input ?? {})["path"] = "edited.ts";
    }).toThrow(TypeError);
    expect(s.messages[1]?.content[0]).toMatchObject({ input: { path: "a.ts", lines: [1, 2] } });
  });

  it("the messages a compaction lands are frozen deeply", async () => {
    const s = new AgentSession({
      contextLimit: LIMIT,
      compactor: syncCompactor((conversation) => ({
        conversation: [
          { ...conversation[0], content: [{ type: "text", text: "summary" }] } as Message,
          ...conversation.slice(1),
        ],
        result: RESULT,
      })),
    });
    fill(s, 2);
    await s.forceCompact();
    expect(s.messages.every(deeplyFrozen)).toBe(true);
  });

  it("a restored snapshot's messages are frozen deeply", () => {
    const s = new AgentSession({ contextLimit: LIMIT });
    s.addUserText("go");
    s.addAssistant([{ type: "tool_use", id: "toolu_1", name: "t", input: { path: "a.ts" } }]);
    const restored = AgentSession.fromJSON(s.toJSON());
    expect(restored.messages.every(deeplyFrozen)).toBe(true);
  });
});
