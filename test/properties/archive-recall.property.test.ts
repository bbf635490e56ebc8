import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AgentSession,
  HybridCompactor,
  LLMCompactor,
  type Message,
  ThresholdCompactor,
  validateConversation,
} from "../../src/index.js";
import { recallHandleIn } from "../../src/internal/recall-mark.js";
import { MockLlmClient } from "../../src/testing/index.js";
import { trajectoryArbitrary } from "../arbitraries/trajectory.js";
import { RUNS, TIMEOUT } from "./compactor-checks.js";
import { seed } from "./invariants.js";

/** Every handle the session's messages name, in placeholders, summaries and cleared inputs. */
function handlesIn(messages: readonly Message[]): string[] {
  const handles: string[] = [];
  const look = (text: string) => {
    const handle = recallHandleIn(text);
    if (handle !== undefined) handles.push(handle);
  };
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === "text") look(block.text);
      if (block.type === "tool_result") {
        look(
          typeof block.content === "string"
            ? block.content
            : block.content.map((part) => (part.type === "text" ? part.text : "")).join(""),
        );
      }
      if (block.type === "tool_use" && typeof block.input["_cleared"] === "string")
        look(block.input["_cleared"]);
    }
  }
  return handles;
}

const strategies: [string, () => Partial<ConstructorParameters<typeof AgentSession>[0]>][] = [
  // Masking, then the oldest messages dropped in the same rewrite.
  ["default", () => ({})],
  [
    "masking",
    () => ({
      compactor: new ThresholdCompactor({
        toolCompaction: "redact",
        keepRecentTurns: 1,
        clearToolInputs: true,
      }),
    }),
  ],
  [
    "hybrid",
    () => ({
      compactor: new HybridCompactor({
        client: new MockLlmClient(),
        keepRecentTurns: 1,
        clearToolInputs: true,
      }),
    }),
  ],
  [
    "llm",
    () => ({
      compactor: false as const,
      llmCompactor: new LLMCompactor(new MockLlmClient(), { keepRecentTurns: 1 }),
    }),
  ],
  ["trim", () => ({ compactor: false as const, trimOnOverflow: { targetUtilization: 0.2 } })],
];

describe("nothing lost: every compacted byte recoverable through recall", () => {
  it(
    "recall round-trips every kind of removed content byte for byte, over random trajectories and strategies",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          trajectoryArbitrary({ maxTurns: 6 }),
          fc.constantFrom(...strategies),
          fc.boolean(),
          async (messages, [_name, options], manual) => {
            fc.pre(validateConversation(messages).length === 0);
            const session = new AgentSession({ contextLimit: 600, ...options(), maxBlockShare: 1 });
            session.append(...messages);
            const original = new Map(session.messages.map((message) => [message.id, message]));
            if (manual) await session.forceCompact().catch(() => undefined);
            else await session.maybeCompact();
            const after = session.messages;
            const handles = handlesIn(after);
            const recovered = new Map<string, Message>();
            const toolResults = new Map<string, unknown>();
            const toolInputs = new Map<string, unknown>();
            // Recalled messages may hold placeholders of earlier compactions: follow them too.
            const seen = new Set<string>();
            for (const handle of handles) {
              if (seen.has(handle)) continue;
              seen.add(handle);
              const record = await session.recall(handle);
              if (record.kind === "messages") {
                for (const message of record.original) {
                  const earlier = recovered.get(message.id);
                  // The first version archived is the original; later ones hold placeholders.
                  if (
                    earlier === undefined ||
                    handlesIn([message]).length < handlesIn([earlier]).length
                  )
                    recovered.set(message.id, message);
                }
                handles.push(...handlesIn(record.original));
              }
              if (record.kind === "tool_result") toolResults.set(record.toolUseId, record.original);
              if (record.kind === "tool_input") toolInputs.set(record.toolUseId, record.original);
            }
            const present = new Map(after.map((message) => [message.id, message]));
            for (const [id, message] of original) {
              const now = present.get(id);
              if (now === undefined) {
                // Removed (folded or trimmed): recoverable whole, byte for byte (but for thinking
                // an earlier change in the same run had to drop: it could not be sent back).
                const restored = restore(recovered.get(id), toolResults, toolInputs);
                expect(JSON.stringify(withoutThinking(restored)), `message ${id}`).toBe(
                  JSON.stringify(withoutThinking(message)),
                );
                continue;
              }
              // A message whose blocks changed is recoverable whole, or block by block.
              if (JSON.stringify(now) === JSON.stringify(message)) continue;
              if (JSON.stringify(recovered.get(id)) === JSON.stringify(message)) continue;
              message.content.forEach((block) => {
                if (block.type === "tool_result") {
                  const kept = now.content.find(
                    (candidate) =>
                      candidate.type === "tool_result" && candidate.toolUseId === block.toolUseId,
                  );
                  if (JSON.stringify(kept) !== JSON.stringify(block))
                    expect(JSON.stringify(toolResults.get(block.toolUseId))).toBe(
                      JSON.stringify(block),
                    );
                } else if (block.type === "tool_use") {
                  const kept = now.content.find(
                    (candidate) => candidate.type === "tool_use" && candidate.id === block.id,
                  );
                  if (JSON.stringify(kept) !== JSON.stringify(block))
                    expect(JSON.stringify(toolInputs.get(block.id))).toBe(
                      JSON.stringify(block.input),
                    );
                } else if (block.type !== "thinking" && block.type !== "redacted_thinking") {
                  // Thinking goes when an earlier change makes it invalid: it could not be sent back.
                  expect(JSON.stringify(now.content), `message ${id}`).toContain(
                    JSON.stringify(block),
                  );
                }
              });
            }
          },
        ),
        { seed: seed(4301), numRuns: 150 * RUNS },
      );
    },
    TIMEOUT,
  );
});

describe("recall errors and archive: false", () => {
  it("names what is wrong: not a handle, another session's handle, an unknown handle", async () => {
    const session = new AgentSession({ contextLimit: 1000 });
    const other = new AgentSession({ contextLimit: 1000 });
    await expect(session.recall("nope")).rejects.toThrow(/not a recall handle/);
    const foreign = `r1-${/-([0-9a-f]{4})/.exec(await handleOf(other))![1]}`;
    await expect(session.recall(foreign)).rejects.toThrow(/another session/);
    const own = await handleOf(session);
    await expect(session.recall(own.replace(/^r\d+/, "r999"))).rejects.toThrow(
      /nothing is archived/,
    );
  });

  it("keeps nothing with archive: false, and the placeholders name no handle", async () => {
    const session = new AgentSession({ contextLimit: 1000, archive: false, trimOnOverflow: false });
    session.append(...bigHistory());
    await session.forceCompact();
    expect(handlesIn(session.messages)).toEqual([]);
    expect(JSON.stringify(session.messages)).toContain("[Content redacted for context management]");
    await expect(session.recall("r1-0000")).rejects.toThrow(/archive: false/);
  });

  it("ThresholdCompactor used directly keeps the seed's exact notice", () => {
    const { conversation } = new ThresholdCompactor({
      toolCompaction: "redact",
      keepRecentTurns: 1,
    }).compact(bigHistory(), new Map());
    const contents = conversation.flatMap((message) =>
      message.content.flatMap((block) => (block.type === "tool_result" ? [block.content] : [])),
    );
    expect(contents[0]).toBe("[Content redacted for context management]");
  });

  it("a snapshot carries the archive (the in-memory one with its records)", async () => {
    const session = new AgentSession({ contextLimit: 1000, trimOnOverflow: false });
    session.append(...bigHistory());
    await session.forceCompact();
    const handle = handlesIn(session.messages)[0]!;
    const restored = AgentSession.fromJSON(JSON.parse(JSON.stringify(session)));
    expect(await restored.recall(handle)).toEqual(await session.recall(handle));
    const next = await handleOf(restored);
    expect(handlesIn(session.messages)).not.toContain(next);
  });
});

describe("pinned messages", () => {
  it("survive 100 compactions unchanged; one that opened the conversation stays ahead of the summary", async () => {
    let seq = 0;
    const session = new AgentSession({
      contextLimit: 2000,
      compactor: false,
      llmCompactor: new LLMCompactor(new MockLlmClient(), { keepRecentTurns: 1 }),
    });
    const rule = session.addUserText("Never push to main. Always run the tests first.", {
      pinned: true,
    });
    for (let round = 0; round < 100; round += 1) {
      session.addUserText(`Task ${round}`);
      seq += 1;
      session.addAssistant([{ type: "tool_use", id: `t${seq}`, name: "run", input: { round } }]);
      session.addToolResults([
        { type: "tool_result", toolUseId: `t${seq}`, content: "ok ".repeat(300) },
      ]);
      session.addAssistant([{ type: "text", text: `Done ${round}` }]);
      await session.forceCompact();
      expect(
        session.messages.find((message) => message.id === rule.id),
        `round ${round}`,
      ).toBe(rule);
      expect(validateConversation(session.messages)).toEqual([]);
    }
    // A stable head: the request after each compaction still reads it from the prompt cache.
    expect(session.messages[0]).toBe(rule);
  });

  it("refuses to pin what cannot be pinned", () => {
    const session = new AgentSession({ contextLimit: 2000 });
    expect(() => session.pin("missing")).toThrow(/no message/);
  });
});

/** A recalled message with the placeholders in it replaced by their recalled originals. */
function restore(
  message: Message | undefined,
  toolResults: ReadonlyMap<string, unknown>,
  toolInputs: ReadonlyMap<string, unknown>,
): Message | undefined {
  if (message === undefined) return undefined;
  const content = message.content.map((block) => {
    if (block.type === "tool_result" && handlesIn([{ ...message, content: [block] }]).length > 0)
      return (toolResults.get(block.toolUseId) as typeof block | undefined) ?? block;
    if (block.type === "tool_use" && typeof block.input["_cleared"] === "string")
      return {
        ...block,
        input: (toolInputs.get(block.id) as typeof block.input | undefined) ?? block.input,
      };
    return block;
  });
  return { ...message, content } as Message;
}

function withoutThinking(message: Message | undefined) {
  if (message === undefined) return undefined;
  const content = message.content.filter(
    (block) => block.type !== "thinking" && block.type !== "redacted_thinking",
  );
  return { ...message, content };
}

function bigHistory(): Message[] {
  const session = new AgentSession({ contextLimit: 1_000_000, sessionId: "history" });
  for (let turn = 1; turn <= 4; turn += 1) {
    session.addUserText(`request ${turn}`);
    session.addAssistant([
      {
        type: "tool_use",
        id: `h${turn}`,
        name: "read",
        input: { path: `f${turn}.ts`, body: "b".repeat(400) },
      },
    ]);
    session.addToolResults([
      { type: "tool_result", toolUseId: `h${turn}`, content: "x".repeat(2000) },
    ]);
    session.addAssistant([{ type: "text", text: `answer ${turn}` }]);
  }
  return [...session.messages];
}

/** A handle the session gives after one masking compaction. */
async function handleOf(session: AgentSession): Promise<string> {
  const copy = AgentSession.fromJSON(JSON.parse(JSON.stringify(session)), {
    trimOnOverflow: false,
  });
  const tag = copy.messages.length;
  for (let turn = 1; turn <= 4; turn += 1) {
    copy.addUserText(`more ${turn}`);
    copy.addAssistant([{ type: "tool_use", id: `k${tag}-${turn}`, name: "read", input: {} }]);
    copy.addToolResults([
      { type: "tool_result", toolUseId: `k${tag}-${turn}`, content: "y".repeat(2000) },
    ]);
  }
  await copy.forceCompact();
  return handlesIn(copy.messages).at(-1)!;
}
