import { describe, expect, it } from "vitest";
import {
  AgentSession,
  type AgentSessionOptions,
  CompactionError,
  LLMCompactor,
  validateConversation,
} from "../../src/index.js";
import { type CompactionArchive, MemoryArchive } from "../../src/store/index.js";
import { MockLlmClient } from "../../src/testing/index.js";

// Review 57b: the caller's abort is told by its signal, never by an error's code; it ends the
// call's wait (in the queue, joining a run) at once; and it never turns a report into a rejection.

const LIMIT = 20_000;
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `exchanges` tool calls of about 1,000 tokens each in one task (30 are over the window). */
function fill(session: AgentSession, exchanges: number, from = 1): void {
  if (from === 1) session.addUserText("Refactor the configuration loader.");
  for (let at = from; at < from + exchanges; at += 1) {
    const id = `toolu_${at}`;
    session.addAssistant([{ type: "tool_use", id, name: "read_file", input: { at } }]);
    session.addToolResults([
      { type: "tool_result", toolUseId: id, content: `${at} `.repeat(1000) },
    ]);
  }
}

function summarized(client: MockLlmClient, options: Partial<AgentSessionOptions> = {}) {
  const session = new AgentSession({
    contextLimit: LIMIT,
    compactor: false,
    llmCompactor: new LLMCompactor(client),
    ...options,
  });
  fill(session, 30);
  return session;
}

/** Whether `promise` settled by the time the pending callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await flush();
  return done;
}

describe("an aborted error no signal asked for is a failure like any", () => {
  const unasked = () =>
    new MockLlmClient({
      defaultReply: () => {
        throw new CompactionError("aborted", "the client cancelled its own request");
      },
    });

  it("the last resort still runs: the request fits", async () => {
    const session = summarized(unasked());
    expect(session.contextUsed).toBeGreaterThan(LIMIT);
    const report = await session.maybeCompact();
    expect(report.error?.code).toBe("aborted");
    expect(report.trimmed?.length).toBeGreaterThan(0);
    expect(report.overWindow).toBe(false);
    expect(session.contextUsed).toBeLessThanOrEqual(LIMIT);
    expect(validateConversation(session.messages)).toEqual([]);
  });

  it("counts for the breaker: after 3, the summarizer is not called again", async () => {
    const client = unasked();
    const session = new AgentSession({
      contextLimit: LIMIT,
      compactor: false,
      llmCompactor: new LLMCompactor(client),
      trimOnOverflow: false,
    });
    fill(session, 24);
    for (let call = 0; call < 5; call += 1) {
      await session.maybeCompact();
      fill(session, 2, 25 + 2 * call);
    }
    expect(client.callCount).toBe(3);
  });
});

describe("the caller's abort is reported, never a rejection", () => {
  it("while the last resort's archive keeps what it removes: nothing goes, the next call trims", async () => {
    let holdPuts = true;
    const memory = new MemoryArchive();
    const held: (() => void)[] = [];
    const archive: CompactionArchive = {
      put: async (sessionId, records) => {
        if (holdPuts) await new Promise<void>((resolve) => held.push(resolve));
        return memory.put(sessionId, records);
      },
      get: (sessionId, handle) => memory.get(sessionId, handle),
    };
    const session = summarized(new MockLlmClient({ defaultReply: new Error("503") }), {
      archive,
    });
    const before = session.messages;
    const controller = new AbortController();
    const pending = session.maybeCompact({ signal: controller.signal });
    await expect.poll(() => held.length).toBe(1);
    controller.abort();
    const report = await pending;
    expect(report.error?.code).toBe("llm_error");
    expect(report.overWindow).toBe(true);
    expect(session.messages).toBe(before);
    holdPuts = false;
    const next = await session.maybeCompact();
    expect(next.trimmed?.length).toBeGreaterThan(0);
    expect(session.contextUsed).toBeLessThanOrEqual(LIMIT);
  });
});

describe("the caller's abort ends its wait for another call's run", () => {
  it("maybeCompact joining a run: resolves at once, the run goes on for its own caller", async () => {
    const client = new MockLlmClient().hang();
    const session = summarized(client);
    const owner = new AbortController();
    const first = session.maybeCompact({ signal: owner.signal });
    await expect.poll(() => client.callCount).toBe(1);
    const controller = new AbortController();
    const joined = session.maybeCompact({ signal: controller.signal });
    controller.abort();
    expect(await settled(joined)).toBe(true);
    expect((await joined).error?.code).toBe("aborted");
    expect(await settled(first)).toBe(false);
    owner.abort();
    expect((await first).error?.code).toBe("aborted");
  });

  it("forceCompact queued behind a run: rejects at once and never runs", async () => {
    const client = new MockLlmClient({ replies: [{ hang: true }], defaultReply: new Error("503") });
    const session = summarized(client);
    const owner = new AbortController();
    const first = session.maybeCompact({ signal: owner.signal });
    await expect.poll(() => client.callCount).toBe(1);
    const controller = new AbortController();
    const forced = session.forceCompact({ signal: controller.signal });
    forced.catch(() => {});
    controller.abort();
    expect(await settled(forced)).toBe(true);
    await expect(forced).rejects.toMatchObject({ code: "aborted" });
    owner.abort();
    await first;
    await flush();
    expect(client.callCount).toBe(1);
  });

  it("maybeCompact queued behind a forceCompact: reports the abort at once", async () => {
    const client = new MockLlmClient({ defaultReply: { hang: true } });
    const session = summarized(client);
    const owner = new AbortController();
    const forced = session.forceCompact({ signal: owner.signal });
    forced.catch(() => {});
    await expect.poll(() => client.callCount).toBeGreaterThan(0);
    const controller = new AbortController();
    const queued = session.maybeCompact({ signal: controller.signal });
    controller.abort();
    expect(await settled(queued)).toBe(true);
    expect((await queued).error?.code).toBe("aborted");
    owner.abort();
    await expect(forced).rejects.toMatchObject({ code: "aborted" });
  });

  it("background mode above the ceiling: the wait for the summary in flight ends", async () => {
    const client = new MockLlmClient().hang();
    const session = summarized(client, { background: { ceiling: 0.5 } });
    const owner = new AbortController();
    const first = session.maybeCompact({ signal: owner.signal });
    await expect.poll(() => client.callCount).toBe(1);
    const controller = new AbortController();
    const waiting = session.maybeCompact({ signal: controller.signal });
    controller.abort();
    expect(await settled(waiting)).toBe(true);
    expect((await waiting).error?.code).toBe("aborted");
    owner.abort();
    await first;
  });

  it("a forceCompact whose signal already fired lands nothing, even without an archive", async () => {
    const session = new AgentSession({ contextLimit: LIMIT, archive: false });
    fill(session, 30);
    const before = session.messages;
    const controller = new AbortController();
    controller.abort();
    await expect(session.forceCompact({ signal: controller.signal })).rejects.toMatchObject({
      code: "aborted",
    });
    expect((await session.maybeCompact({ signal: controller.signal })).error?.code).toBe("aborted");
    expect(session.messages).toBe(before);
  });
});
