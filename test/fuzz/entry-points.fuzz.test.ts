import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AgentSession,
  createCompactor,
  HybridCompactor,
  LLMCompactor,
  type Message,
  ThresholdCompactor,
  ValidationError,
  validateConversation,
} from "../../src/index.js";
import { ConversationBuilder, MockLlmClient } from "../../src/testing/index.js";
import { trajectoryArbitrary } from "../arbitraries/trajectory.js";
import { seed } from "../properties/invariants.js";
import {
  DELETE,
  INVALID_EVERYWHERE,
  isPrefix,
  junkArbitrary,
  mutate,
  paths,
} from "../support/mutation.js";

/** Runs `call`; passes if it succeeds or fails with a ValidationError whose issues have paths; returns the error. */
async function refusesCleanly(call: () => unknown): Promise<ValidationError | undefined> {
  let error: unknown;
  try {
    await call();
    return undefined;
  } catch (caught) {
    error = caught;
  }
  if (!ValidationError.isInstance(error)) {
    throw new Error(`expected a ValidationError, got ${String(error)}`, { cause: error });
  }
  expect(error.issues.length).toBeGreaterThan(0);
  for (const issue of error.issues) {
    expect(Array.isArray(issue.path)).toBe(true);
    expect(typeof issue.message).toBe("string");
  }
  return error;
}

async function mustRefuse(call: () => unknown): Promise<ValidationError> {
  const error = await refusesCleanly(call);
  if (error === undefined) throw new Error("the call accepted bad input");
  return error;
}

function sessionWithHistory(): AgentSession {
  const session = new AgentSession({
    contextLimit: 10_000,
    sessionId: "fuzz",
    clock: () => new Date("2026-01-01T00:00:00Z"),
  });
  session.addUserText("start");
  session.addAssistant([{ type: "tool_use", id: "toolu_a", name: "ls", input: {} }]);
  session.addToolResults([
    { type: "tool_result", toolUseId: "toolu_a", content: "a b", isError: false },
  ]);
  return session;
}

const state = (session: AgentSession) =>
  JSON.stringify({ snapshot: session.toJSON(), summaries: [...session.compactSummaries] });

const validMessages = () =>
  new ConversationBuilder().user("hi").toolCall({ name: "ls", result: "x" }).build();
const RUNS = 300;
const TIMEOUT = 120_000;

describe("bad input at every public entry point: ValidationError naming the path, never a crash", () => {
  it(
    "constructors refuse junk options, and name the field of a bad one",
    async () => {
      const client = new MockLlmClient();
      const constructors: [string, (config: unknown) => unknown][] = [
        ["ThresholdCompactor", (config) => new ThresholdCompactor(config as never)],
        ["LLMCompactor", (config) => new LLMCompactor(client, config as never)],
        ["HybridCompactor", (config) => new HybridCompactor(config as never)],
        ["AgentSession", (config) => new AgentSession(config as never)],
        ["createCompactor", (config) => createCompactor(config as never, client)],
      ];
      const fields: Record<string, string[]> = {
        ThresholdCompactor: [
          "threshold",
          "keepRecentTurns",
          "toolCompaction",
          "keepRecentToolUses",
          "clearAtLeast",
        ],
        LLMCompactor: [
          "threshold",
          "keepRecentTurns",
          "maxSummaryTokens",
          "summaryTimeoutMs",
          "maxTranscriptTokens",
          "keepUserMessagesTokens",
          "timers",
          "clock",
        ],
        HybridCompactor: [
          "client",
          "threshold",
          "targetUtilization",
          "keepRecentTurns",
          "maxSummaryTokens",
        ],
        AgentSession: [
          "contextLimit",
          "sessionId",
          "compactor",
          "llmCompactor",
          "clock",
          "onEvent",
          "logger",
          "maxConsecutiveFailures",
        ],
        createCompactor: ["type", "config"],
      };
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...constructors),
          junkArbitrary,
          fc.constantFrom(...INVALID_EVERYWHERE),
          fc.nat(),
          async ([name, build], junk, invalid, pick) => {
            await refusesCleanly(() => build(junk));
            const names = fields[name]!;
            const field = names[pick % names.length]!;
            const base =
              name === "AgentSession"
                ? { contextLimit: 1000 }
                : name === "createCompactor"
                  ? { type: "threshold" }
                  : name === "HybridCompactor"
                    ? { client }
                    : {};
            const error = await mustRefuse(() => build({ ...base, [field]: invalid }));
            expect(
              error.issues.some((issue) => issue.path[0] === field || issue.path.includes(field)),
            ).toBe(true);
            const unknown = await mustRefuse(() =>
              build(
                name === "createCompactor" ? { ...base, kind: "x" } : { ...base, notAnOption: 1 },
              ),
            );
            expect(unknown.message).toMatch(/notAnOption|kind|Unrecognized/i);
          },
        ),
        { seed: seed(4101), numRuns: RUNS },
      );
      await mustRefuse(() => new LLMCompactor(null as never));
      await mustRefuse(() => new LLMCompactor({ complete: "no" } as never));
      await mustRefuse(() => createCompactor({ type: "llm" }));
    },
    TIMEOUT,
  );

  it(
    "session methods refuse junk and leave the session exactly as it was",
    async () => {
      const methods: [string, (session: AgentSession, value: unknown) => unknown][] = [
        ["append", (session, value) => session.append(value as Message)],
        [
          "append(many)",
          (session, value) =>
            session.append(...(validMessages().slice(0, 1) as Message[]), value as Message),
        ],
        ["addUserText", (session, value) => session.addUserText(value as string)],
        ["addAssistant", (session, value) => session.addAssistant(value as never)],
        ["addToolResults", (session, value) => session.addToolResults(value as never)],
        ["recordUsage", (session, value) => session.recordUsage(value as never)],
        [
          "storeCompactSummaries",
          (session, value) => session.storeCompactSummaries(value as never),
        ],
        ["forceCompact", (session, value) => session.forceCompact(value as never)],
        ["maybeCompact", (session, value) => session.maybeCompact(value as never)],
      ];
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...methods), junkArbitrary, async ([name, call], junk) => {
          const session = sessionWithHistory();
          const before = state(session);
          const error = await refusesCleanly(() => call(session, junk));
          if (error !== undefined) expect(state(session), `${name} half-applied`).toBe(before);
        }),
        { seed: seed(4102), numRuns: RUNS * 3 },
      );
    },
    TIMEOUT,
  );

  it("recordUsage names the bad count: NaN, negative, fractional, huge", async () => {
    for (const field of [
      "inputTokens",
      "cacheCreationInputTokens",
      "cacheReadInputTokens",
      "outputTokens",
    ]) {
      for (const bad of [Number.NaN, -1, 1.5, 2 ** 60, Number.POSITIVE_INFINITY, "10", null]) {
        const session = sessionWithHistory();
        const before = state(session);
        const error = await mustRefuse(() =>
          session.recordUsage({ inputTokens: 1, [field]: bad } as never),
        );
        expect(error.issues[0]?.path).toEqual([field]);
        expect(state(session)).toBe(before);
      }
    }
  });

  it(
    "messages with one field broken (wrong type, missing, unknown role) are refused with a path to it",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          trajectoryArbitrary({ maxTurns: 3 }),
          fc.nat(),
          fc.constantFrom<unknown>(
            DELETE,
            null,
            Number.NaN,
            -1,
            2 ** 60,
            "system",
            { nested: true },
            [],
            42,
            true,
          ),
          async (messages, pick, replacement) => {
            const all = paths(messages).filter((path) => path.length >= 2);
            const path = all[pick % all.length]!;
            const broken = mutate(messages, path, replacement) as Message[];
            const session = new AgentSession({ contextLimit: 10_000, compactor: false });
            const before = state(session);
            const error = await refusesCleanly(() => session.append(...broken));
            if (error === undefined) return; // the change kept it valid (e.g. a string for a string)
            expect(state(session)).toBe(before);
            expect(
              error.issues.some(
                (issue) => isPrefix(issue.path, path) || isPrefix(path, issue.path),
              ),
              `an issue names ${path.join(".")}: ${error.message}`,
            ).toBe(true);
            // The same input to the other entry points: refused too, never a crash.
            await refusesCleanly(() => validateConversation(broken));
            await mustRefuse(() => new ThresholdCompactor().compact(broken, new Map()));
            await mustRefuse(() =>
              new LLMCompactor(new MockLlmClient()).compactAsync(broken, new Map()),
            );
          },
        ),
        { seed: seed(4103), numRuns: RUNS * 2 },
      );
    },
    TIMEOUT,
  );

  it("unknown roles, missing ids and duplicate tool_use ids are refused", async () => {
    const [first] = validMessages();
    for (const role of ["system", "tool", "developer", "", 1]) {
      const error = await mustRefuse(() => validateConversation([{ ...first!, role } as never]));
      expect(error.issues.some((issue) => isPrefix(issue.path, [0, "role"]))).toBe(true);
    }
    const { id: _, ...withoutId } = first!;
    const missing = await mustRefuse(() =>
      new AgentSession({ contextLimit: 10 }).append(withoutId as never),
    );
    expect(missing.issues[0]?.path).toEqual([0, "id"]);

    // An answered call's id may come again (a provider numbering each reply's calls)…
    const reusing = sessionWithHistory();
    reusing.addUserText("again");
    reusing.addAssistant([{ type: "tool_use", id: "toolu_a", name: "ls", input: {} }]);
    // …not a waiting one's.
    const session = sessionWithHistory();
    session.addAssistant([{ type: "tool_use", id: "toolu_w", name: "ls", input: {} }]);
    const before = state(session);
    const duplicate = await mustRefuse(() =>
      session.addAssistant([{ type: "tool_use", id: "toolu_w", name: "ls", input: {} }]),
    );
    expect(duplicate.issues[0]?.path).toEqual([0, "id"]);
    const twice = await mustRefuse(() =>
      session.addAssistant([
        { type: "tool_use", id: "toolu_b", name: "ls", input: {} },
        { type: "tool_use", id: "toolu_b", name: "ls", input: {} },
      ]),
    );
    expect(twice.issues[0]?.path).toEqual([1, "id"]);
    const viaAppend = await mustRefuse(() =>
      session.append({
        role: "assistant",
        id: "new",
        sessionId: "fuzz",
        turnId: { owner: "u", number: 1 },
        createdAt: new Date(),
        content: [{ type: "tool_use", id: "toolu_w", name: "ls", input: {} }],
      }),
    );
    expect(viaAppend.issues[0]?.path).toEqual([0, "content", 0, "id"]);
    expect(state(session)).toBe(before);
    // validateConversation reports it as the API would (a waiting call's id given again is
    // sent twice); an answered call's id is not, the converters sending it as `<id>_<n>`.
    const messages = [...session.messages];
    const copy = { ...messages.at(-1)!, id: "copy" };
    expect(
      validateConversation([...messages, copy].map((m, i) => ({ ...m, id: `m${i}` }))).map(
        (p) => p.code,
      ),
    ).toContain("duplicate_tool_use_id");
    expect(validateConversation(reusing.messages).map((p) => p.code)).not.toContain(
      "duplicate_tool_use_id",
    );
  });

  it(
    "fromJSON refuses broken snapshots and bad deps, naming the field",
    async () => {
      const snapshot = JSON.parse(JSON.stringify(sessionWithHistory().toJSON())) as Record<
        string,
        unknown
      >;
      expect(() => AgentSession.fromJSON(snapshot)).not.toThrow();
      await fc.assert(
        fc.asyncProperty(
          fc.nat(),
          fc.constantFrom<unknown>(DELETE, null, Number.NaN, -1, 2 ** 60, "x", {}, [], true),
          async (pick, replacement) => {
            const all = paths(snapshot);
            const path = all[pick % all.length]!;
            const broken = mutate(snapshot, path, replacement);
            const error = await refusesCleanly(() => AgentSession.fromJSON(broken));
            if (error === undefined) return;
            expect(
              error.issues.some(
                (issue) => isPrefix(issue.path, path) || isPrefix(path, issue.path),
              ),
              `an issue names ${path.join(".")}: ${error.message}`,
            ).toBe(true);
          },
        ),
        { seed: seed(4104), numRuns: RUNS },
      );
      for (const junk of [null, "snapshot", 1, [], { version: 2 }])
        await mustRefuse(() => AgentSession.fromJSON(junk));
      for (const deps of [null, "deps", 5, { contextLimit: -1 }, { compactor: 3 }])
        await mustRefuse(() => AgentSession.fromJSON(snapshot, deps as never));
    },
    TIMEOUT,
  );

  it(
    "compact() and compactAsync() refuse a non-array, junk summaries and junk options",
    async () => {
      const client = new MockLlmClient();
      const compactors = [
        new ThresholdCompactor(),
        new LLMCompactor(client),
        new HybridCompactor({ client }),
      ];
      await fc.assert(
        fc.asyncProperty(junkArbitrary, junkArbitrary, async (conversation, summaries) => {
          for (const compactor of compactors) {
            await refusesCleanly(() =>
              compactor.compact(conversation as never, summaries as never),
            );
            if ("compactAsync" in compactor)
              await refusesCleanly(() =>
                compactor.compactAsync(conversation as never, summaries as never),
              );
          }
        }),
        { seed: seed(4105), numRuns: RUNS },
      );
      for (const compactor of compactors) {
        await mustRefuse(() => compactor.compact(null as never, new Map()));
        await mustRefuse(() => compactor.compact("messages" as never, new Map()));
        // LLMCompactor's synchronous compact takes no summaries (it changes nothing).
        if (!(compactor instanceof LLMCompactor))
          await mustRefuse(() => compactor.compact(validMessages(), null as never));
      }
      for (const compactor of [new LLMCompactor(client), new HybridCompactor({ client })]) {
        await mustRefuse(() => compactor.compactAsync({} as never, new Map()));
        await mustRefuse(() => compactor.compactAsync(validMessages(), "map" as never));
        await mustRefuse(() => compactor.compactAsync(validMessages(), new Map(), null as never));
        await mustRefuse(() =>
          compactor.compactAsync(validMessages(), new Map(), { signal: "stop" } as never),
        );
        await mustRefuse(() =>
          compactor.compactAsync(validMessages(), new Map(), { contextLimit: Number.NaN }),
        );
      }
      expect(client.callCount).toBe(0);
    },
    TIMEOUT,
  );
});
