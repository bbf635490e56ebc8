import { describe, expect, it, vi } from "vitest";
import { validatedEstimate } from "../core/entry-validation.js";
import type { Message } from "../core/message.js";
import { estimateTokens, knownMessages } from "../core/message-memo.js";
import { ConversationBuilder } from "../testing/builders.js";
import { AgentSession } from "./agent-session.js";
import { History, SNAPSHOT_LIMIT } from "./history.js";
import { parseSnapshot } from "./snapshot.js";

/** u1: a request and a read_file call (tool use `t1`), its result, an answer; u2: a request. */
function conversation() {
  return new ConversationBuilder({ idPrefix: "h" })
    .user("first")
    .toolCall({ id: "t1", name: "read_file", result: "contents" })
    .assistant("done")
    .user("second")
    .build();
}

describe("History", () => {
  it("refuses to land an output that holds the id of a message appended while it ran, changing nothing", () => {
    const history = new History();
    const messages = conversation();
    history.push(messages.slice(0, 4));
    const replacement = {
      before: history.messages,
      generation: history.generation,
      // A compactor's new message, whose id a message appended meanwhile takes too.
      conversation: [{ ...messages[0]!, id: messages[4]!.id }, ...messages.slice(2, 4)],
      rules: {
        pinned: new Set<string>(),
        keepStaleThinking: false,
        clock: () => new Date(0),
        archive: undefined,
      },
    };
    history.push(messages.slice(4));
    expect(() => history.landed(replacement)).toThrow(expect.objectContaining({ code: "aborted" }));
    expect(history.messages).toEqual(messages);
  });

  it("hands out its view known to the memo with its estimate: a caller's check is a lookup, exact after appends, merged results, compactions and restores", async () => {
    const session = new AgentSession({
      contextLimit: 5_000_000,
      compactor: { type: "threshold", config: { toolCompaction: "redact", keepRecentTurns: 1 } },
    });
    const builder = new ConversationBuilder({ idPrefix: "k" });
    // Past the snapshot's limit, where callers get the view.
    for (let n = 1; n * 4 <= SNAPSHOT_LIMIT + 12; n += 1)
      builder
        .user(`request ${n}`)
        .toolCall({ id: `t${n}`, name: "read_file", result: "x".repeat(400) })
        .assistant(`done ${n}`);
    const turns = builder.build();
    const check = (messages: readonly Message[]) => {
      expect(messages.length).toBeGreaterThan(SNAPSHOT_LIMIT);
      // Remembered as handed out: the memo answers from what it was told (it says whether the
      // exchanges were found whole only of a conversation it was told of), no message walked.
      expect("exchangesWhole" in knownMessages(messages)).toBe(true);
      expect(validatedEstimate(messages, "messages")).toBe(estimateTokens([...messages]));
    };
    session.append(...turns.slice(0, SNAPSHOT_LIMIT));
    for (let at = SNAPSHOT_LIMIT; at < turns.length; at += 4) {
      session.append(...turns.slice(at, at + 4));
      check(session.messages);
    }
    session.addUserText("one more");
    session.addAssistant([{ type: "tool_use", id: "t0", name: "read_file", input: {} }]);
    session.addToolResults([{ type: "tool_result", toolUseId: "t0", content: "a" }]);
    check(session.messages);
    await session.forceCompact();
    check(session.messages);
    const restored = AgentSession.fromJSON(JSON.parse(JSON.stringify(session)));
    check(restored.messages);
  });

  it("lands a replacement after what was appended meanwhile, and refuses one made on a replaced history", () => {
    const history = new History();
    const messages = conversation();
    history.push(messages.slice(0, 4));
    const before = history.messages;
    const rules = {
      pinned: new Set<string>(),
      keepStaleThinking: false,
      clock: () => new Date(0),
      archive: undefined,
    };
    const replacement = {
      before,
      generation: history.generation,
      conversation: [messages[3]!],
      rules,
    };
    history.push(messages.slice(4));
    expect(history.landed(replacement)).toEqual([messages[3], messages[4]]);
    history.replace(history.landed(replacement));
    expect(history.messages).toEqual([messages[3], messages[4]]);
    expect(Object.isFrozen(history.messages[0])).toBe(true);
    expect(() => history.landed(replacement)).toThrow(/replaced while compacting/);
  });

  it("serves one frozen view per change, and a plain copy for compactions", () => {
    const history = new History();
    const messages = conversation();
    history.push(messages.slice(0, 2));
    const view = history.messages;
    expect(Object.isFrozen(view)).toBe(true);
    expect(history.messages).toBe(view);
    history.push(messages.slice(2));
    expect(history.messages).not.toBe(view);
    expect(history.messages).toEqual(messages);
    const copy = history.snapshot();
    expect(Object.isFrozen(copy)).toBe(false);
    expect(copy).toEqual(messages);
  });

  it("knows the ids in use, the last user turn and the pending tool uses", () => {
    const history = new History();
    const messages = conversation();
    history.push(messages.slice(0, 2));
    expect(history.openToolUses().unanswered).toEqual(["t1"]);
    expect(history.duplicateIssues([messages[0]!])).toEqual([
      { path: [0, "id"], message: `duplicate message id "${messages[0]!.id}"` },
    ]);
    const call = messages[1]!.content.filter((block) => block.type === "tool_use");
    expect(history.duplicateIssues([{ id: "new", content: call }])).toEqual([
      {
        path: [0, "content", 0, "id"],
        message: 'duplicate tool_use id "t1" (its call waits)',
      },
    ]);
    history.push(messages.slice(2));
    expect(history.openToolUses().unanswered).toHaveLength(0);
    // Answered, its id may come again (a provider numbering each reply's calls).
    expect(history.duplicateIssues([{ id: "new", content: call }])).toEqual([]);
    expect(history.lastTurnNumber).toBe(2);
  });

  it("on replace, bumps the generation and forgets the summaries of results that left", () => {
    const history = new History();
    const messages = conversation();
    history.push(messages);
    history.summaries.set("t1", "read_file: 8 characters");
    history.summaries.set("t9", "stored ahead of its result");
    const generation = history.generation;
    history.replace(messages.slice(3));
    expect(history.generation).toBe(generation + 1);
    expect([...history.summaries.keys()]).toEqual(["t9"]);
    expect(history.duplicateIssues([messages[0]!])).toEqual([]);
  });

  it("on a replace that keeps every message's ids in place, keeps ids, summaries and an exact estimate", () => {
    const history = new History();
    const messages = conversation();
    history.push(messages);
    history.summaries.set("t1", "read_file: 8 characters");
    const result = messages[2]!;
    const masked = messages.slice();
    masked[2] = {
      ...result,
      content: result.content.map((block) =>
        block.type === "tool_result" ? { ...block, content: "[masked]" } : block,
      ),
    } as Message;
    history.replace(masked);
    expect(history.summaries.get("t1")).toBe("read_file: 8 characters");
    expect(history.duplicateIssues([messages[0]!])).toHaveLength(1);
    expect(history.meter.estimate).toBe(estimateTokens(masked));
    // The same message ids, but the call renamed in its use and its result: counted anew.
    const renamed = masked.map((message) => ({
      ...message,
      content: message.content.map((block) =>
        block.type === "tool_use"
          ? { ...block, id: "t2" }
          : block.type === "tool_result"
            ? { ...block, toolUseId: "t2" }
            : block,
      ),
    })) as Message[];
    history.replace(renamed);
    expect(history.summaries.has("t1")).toBe(false);
    expect(history.duplicateIssues([messages[0]!])).toHaveLength(1);
    expect(history.meter.estimate).toBe(estimateTokens(renamed));
  });

  it("restores a snapshot, refusing a tool_use id used again while its call waits", () => {
    const messages = conversation();
    const session = new AgentSession({ contextLimit: 100_000, compactor: false });
    session.append(...messages);
    session.storeCompactSummaries({ t1: "summary" });
    const history = new History();
    history.restore(parseSnapshot(session.toJSON()));
    expect(history.messages).toEqual(messages);
    expect(history.lastTurnNumber).toBe(2);
    expect(history.summaries.get("t1")).toBe("summary");

    // The tool call again under another message id, before its result: a valid list, but
    // not a valid history. After its result, a provider numbering each reply's calls.
    const snapshot = { ...session.toJSON() };
    const again = { ...snapshot.messages[1]!, id: "again" };
    const [first, call, ...rest] = snapshot.messages;
    snapshot.messages = [first!, call!, again, ...rest];
    expect(() => new History().restore(parseSnapshot(snapshot))).toThrow(
      /messages\[2\]\.content\[0\]\.id: duplicate tool_use id "t1"/,
    );
    snapshot.messages = [first!, call!, ...rest, again];
    expect(() => new History().restore(parseSnapshot(snapshot))).not.toThrow();
  });
});

describe("session.messages read after every append", () => {
  /** The messages arrays frozen while `run` runs (a copy made for a read). */
  function frozenMessageArrays(run: () => void): number {
    let frozen = 0;
    const freeze = Object.freeze;
    const spy = vi.spyOn(Object, "freeze").mockImplementation((value) => {
      const array = value as unknown;
      if (Array.isArray(array) && array.length > 1 && (array[0] as { role?: unknown })?.role)
        frozen += 1;
      return freeze(value);
    });
    try {
      run();
    } finally {
      spy.mockRestore();
    }
    return frozen;
  }

  it("reads in bounded time: a frozen copy of a short history, a view made in O(1) of a long one", () => {
    const session = new AgentSession({ contextLimit: 10_000_000, compactor: false });
    const held: (readonly Message[])[] = [];
    const append = (index: number) => {
      if (index % 2 === 0) session.addUserText(`request ${index}`);
      else session.addAssistant([{ type: "text", text: `answer ${index}` }]);
    };
    // Up to SNAPSHOT_LIMIT messages, each read after an append copies at most that many.
    const shortCopies = frozenMessageArrays(() => {
      for (let index = 0; index < SNAPSHOT_LIMIT; index += 1) {
        append(index);
        expect(session.messages.at(-1)?.id).toBeDefined();
      }
    });
    expect(shortCopies).toBeLessThanOrEqual(SNAPSHOT_LIMIT);
    expect(structuredClone(session.messages)).toHaveLength(SNAPSHOT_LIMIT);
    // Beyond it, no read copies anything, however often it is read.
    const copies = frozenMessageArrays(() => {
      for (let index = SNAPSHOT_LIMIT; index < SNAPSHOT_LIMIT + 2_000; index += 1) {
        append(index);
        expect(session.messages.at(-1)?.id).toBeDefined();
        if (index % 500 === 0) held.push(session.messages);
      }
    });
    expect(copies).toBe(0);
    // What a caller held is what it read then.
    expect(held.map((view) => view.length)).toEqual([2501, 3001, 3501, 4001]);
    expect(session.messages).toBe(session.messages);
    expect(session.messages).toHaveLength(SNAPSHOT_LIMIT + 2_000);
  });

  it("a held view keeps its messages when results merge into the last message, and across a compaction", async () => {
    const session = new AgentSession({ contextLimit: 10_000_000 });
    session.addUserText("read two files");
    session.addAssistant([
      { type: "tool_use", id: "t1", name: "read", input: {} },
      { type: "tool_use", id: "t2", name: "read", input: {} },
    ]);
    session.addToolResults([{ type: "tool_result", tool_use_id: "t1", content: "one" }]);
    const before = session.messages;
    const last = before.at(-1);
    session.addToolResults([{ type: "tool_result", tool_use_id: "t2", content: "two" }]);
    expect(session.messages).toHaveLength(3);
    expect(session.messages.at(-1)).not.toBe(last);
    expect(before.at(-1)).toBe(last);
    session.addUserText("next");
    await session.forceCompact();
    expect(before).toHaveLength(3);
    expect(before.at(-1)).toBe(last);
    expect(() => (before as Message[]).push(last!)).toThrow(TypeError);
  });
});
