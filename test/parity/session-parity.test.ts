import { describe, expect, it } from "vitest";
import { appendAnthropicResponse } from "../../src/anthropic/response.js";
import { LLMCompactor } from "../../src/compactors/llm-compactor.js";
import { ThresholdCompactor } from "../../src/compactors/threshold-compactor.js";
import type { CompactionError } from "../../src/core/errors.js";
import type { Message } from "../../src/core/message.js";
import { AgentSession } from "../../src/session/agent-session.js";
import type { CompactingSession } from "../../src/session/compacting-session.js";
import type { CompactionEvent } from "../../src/session/events.js";
import type { AgentSessionOptions } from "../../src/session/options.js";
import { MemoryStore } from "../../src/store/memory-store.js";
import { openSession } from "../../src/store/stored-session.js";
import { MockLlmClient } from "../../src/testing/mock-llm-client.js";

// The same scripts through AgentSession and a StoredSession on a MemoryStore: one core, so
// the messages, the reports and the events must be the same. What differs by design is
// normalized: message ids (uuid v7, new per run). One difference is by design and left out of
// the scripts: a stored session's `append` of messages it holds already is a retry whose answer
// was lost, and appends nothing, where AgentSession refuses the duplicate ids.

type AnySession = CompactingSession<"sync"> | CompactingSession<"async">;
type Script = (session: AnySession, log: (label: string, value: unknown) => void) => Promise<void>;

const START = Date.parse("2026-12-01T00:00:00Z");

function clock() {
  let tick = 0;
  return () => new Date(START + 1000 * tick++);
}

/** A JSON copy with message ids by order of appearance and recall handles as `rN`. */
function normalizer() {
  const ids = new Map<string, string>();
  const handles = new Map<string, string>();
  const idOf = (id: string) => {
    if (!ids.has(id)) ids.set(id, `m${ids.size + 1}`);
    return ids.get(id);
  };
  const text = (value: string) =>
    value
      .replace(/r\d+-[0-9a-f]{4}/g, (handle) => {
        if (!handles.has(handle)) handles.set(handle, `r${handles.size + 1}`);
        return handles.get(handle) ?? handle;
      })
      .replace(
        /[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}/g,
        (id) => idOf(id) ?? id,
      );
  const walk = (value: unknown, key?: string): unknown => {
    if (typeof value === "string")
      return key === "id" || key === "messageId" ? idOf(value) : text(value);
    if (value instanceof Date) return value.toISOString();
    if (value instanceof Error) {
      return { error: (value as CompactionError).code ?? value.name, message: text(value.message) };
    }
    if (Array.isArray(value)) return value.map((item) => walk(item));
    if (value instanceof Map) return walk(Object.fromEntries(value));
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    }
    return value;
  };
  return walk;
}

async function trace(
  open: (options: AgentSessionOptions) => Promise<AnySession>,
  options: () => AgentSessionOptions,
  script: Script,
): Promise<unknown[]> {
  const entries: unknown[] = [];
  const events: CompactionEvent[] = [];
  const session = await open({
    ...options(),
    clock: clock(),
    onEvent: (event) => events.push(event),
  });
  await script(session, (label, value) => entries.push({ label, value }));
  entries.push({ label: "messages", value: session.messages });
  entries.push({ label: "summaries", value: session.compactSummaries });
  entries.push({ label: "contextUsed", value: session.contextUsed });
  entries.push({ label: "compactionUsage", value: session.compactionUsage });
  entries.push({ label: "events", value: events });
  const normalize = normalizer();
  return entries.map((entry) => normalize(entry));
}

const inMemory = async (options: AgentSessionOptions) => new AgentSession(options);
const stored = (options: AgentSessionOptions) => {
  const { sessionId: _sessionId, ...rest } = options;
  return openSession(new MemoryStore(), "parity", rest);
};

async function expectParity(options: () => AgentSessionOptions, script: Script) {
  const memory = await trace(inMemory, () => ({ ...options(), sessionId: "parity" }), script);
  const store = await trace(stored, options, script);
  expect(store).toEqual(memory);
  return memory;
}

const result = (id: string, size: number) => ({
  type: "tool_result" as const,
  toolUseId: id,
  content: `output of ${id} `.repeat(size),
});

/** A whole message of the user's first turn, as a caller appending messages builds it. */
const turnMessage = (id: string, role: "user" | "assistant", text: string): Message => ({
  id,
  role,
  sessionId: "parity",
  turnId: { owner: "u", number: 1 },
  createdAt: new Date(START),
  content: [{ type: "text", text }],
});

/** A tool loop: each step a call and its result, `maybeCompact` before each request. */
const toolLoop =
  (steps: number, size: number): Script =>
  async (session, log) => {
    await session.addUserText("Fix the build. Never touch package-lock.json.", { pinned: true });
    for (let step = 1; step <= steps; step += 1) {
      log(`maybeCompact ${step}`, await session.maybeCompact());
      await session.addAssistant([
        { type: "text", text: `step ${step}` },
        { type: "tool_use", id: `toolu_${step}`, name: "read", input: { path: `src/f${step}.ts` } },
      ]);
      await session.recordUsage({
        inputTokens: 300 * step,
        cacheReadInputTokens: 50,
        outputTokens: 20,
      });
      await session.addToolResults([
        { ...result(`toolu_${step}`, size), compactSummary: `f${step} read` },
      ]);
      if (step % 4 === 0) await session.addUserText(`Next, part ${step / 4}.`);
    }
  };

describe("AgentSession and StoredSession: one core", () => {
  it("a tool loop under masking: the same messages, reports and events", async () => {
    const trace = await expectParity(
      () => ({
        contextLimit: 3_000,
        compactor: new ThresholdCompactor({ threshold: 0.5, keepRecentToolUses: 2 }),
      }),
      toolLoop(10, 80),
    );
    expect(JSON.stringify(trace)).toContain("compaction_end");
  });

  it("summaries, failures, forceCompact, a system message, pins and recall", async () => {
    const options = () => ({
      contextLimit: 4_000,
      llmCompactor: new LLMCompactor(
        new MockLlmClient()
          .reply({ text: "Summary: reading files.", usage: { inputTokens: 900, outputTokens: 40 } })
          .fail(new Error("overloaded"))
          .reply("Second summary."),
        { keepRecentTurns: 1, threshold: 0.6, clock: () => new Date(START) },
      ),
    });
    const trace = await expectParity(options, async (session, log) => {
      await toolLoop(8, 40)(session, log);
      await session.addSystemMessage("The user switched to the release branch.");
      const first = session.messages.find((message) => message.role === "user");
      if (first !== undefined)
        log("pin", await Promise.resolve(session.pin(first.id)).catch((error: unknown) => error));
      log(
        "forceCompact",
        await session
          .forceCompact({ instructions: "Keep file paths." })
          .catch((error: unknown) => error),
      );
      log("forceCompact again", await session.forceCompact().catch((error: unknown) => error));
      const handle = /\[recall (r\d+-[0-9a-f]{4})\]/.exec(JSON.stringify(session.messages))?.[1];
      log("recall", handle === undefined ? "none" : await session.recall(handle));
      log("recall unknown", await session.recall("r999-0000").catch((error: unknown) => error));
    });
    const text = JSON.stringify(trace);
    expect(text).toContain("compaction_failed");
    expect(text).toContain("Summary: reading files.");
    expect(text).toContain('"recall","value":{"handle"');
  });

  it("the last resort, appends as they are, and refusals", async () => {
    const options = () => ({ contextLimit: 2_000, compactor: false as const });
    const trace = await expectParity(options, async (session, log) => {
      const messages = [
        turnMessage("u1", "user", "hello ".repeat(400)),
        turnMessage("a1", "assistant", "hi ".repeat(400)),
      ];
      await session.append(...messages);
      log(
        "duplicate ids within one append",
        await Promise.resolve()
          .then(() => session.append({ ...messages[0]!, id: "u2" }, { ...messages[1]!, id: "u2" }))
          .catch((error: unknown) => error),
      );
      log(
        "orphan result",
        await Promise.resolve()
          .then(() => session.addToolResults([result("toolu_x", 1)]))
          .catch((error: unknown) => error),
      );
      await session.addUserText(`long paste ${"x".repeat(3_000)}`);
      await session.addAssistant([{ type: "text", text: "ok ".repeat(600) }]);
      log("maybeCompact", await session.maybeCompact());
      // What the API reported of the request: events, nothing appended or stored.
      const reported = {
        content: [],
        input_transformations: [{ type: "thinking_dropped" }],
        context_management: {
          applied_edits: [{ type: "clear_tool_uses", cleared_input_tokens: 12 }],
        },
        diagnostics: { cache_miss_reason: { type: "messages_changed" } },
      };
      log(
        "reported",
        session instanceof AgentSession
          ? appendAnthropicResponse(session, reported)
          : await appendAnthropicResponse(session as CompactingSession<"async">, reported),
      );
    });
    const events = trace.find((entry) => (entry as { label: string }).label === "events") as {
      value: { type: string }[];
    };
    expect(events.value.map((event) => event.type).slice(-3)).toEqual([
      "input_transformations",
      "context_edits_applied",
      "cache_diagnosis",
    ]);
  });
});
