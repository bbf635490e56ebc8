import { describe, expect, it } from "vitest";
import { warningLogger } from "../../test/support/warning-logger.js";
import { AgentSession, ValidationError } from "../index.js";
import type { SessionSnapshot } from "./snapshot.js";

type Block = { type: string; id?: string; toolUseId?: string };
type Edited = SessionSnapshot & { messages: { content: Block[] }[] };

/** A session of three tool exchanges (`call_0` each time: ids reused once answered), as JSON. */
function exchangesSnapshot(): Edited {
  const session = new AgentSession({ contextLimit: 20_000, compactor: false });
  for (let turn = 0; turn < 3; turn += 1) {
    session.addUserText(`task ${turn}`);
    session.addAssistant([{ type: "tool_use", id: "call_0", name: "read", input: { turn } }]);
    session.addToolResults([{ type: "tool_result", toolUseId: "call_0", content: `r${turn}` }]);
    session.addAssistant([{ type: "text", text: `done ${turn}` }]);
  }
  return JSON.parse(JSON.stringify(session.toJSON())) as Edited;
}

/** The issues' paths of the `ValidationError` `restore` throws. */
function refusedAt(restore: () => unknown): string[] {
  try {
    restore();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).issues.map((issue) => issue.path.join("."));
  }
  throw new Error("the snapshot was restored");
}

describe("fromJSON checks the conversation as append does (review 55c #2)", () => {
  it("restores calls whose ids are used again once answered, and an open tail", () => {
    const snapshot = exchangesSnapshot();
    expect(AgentSession.fromJSON(snapshot).messages).toHaveLength(12);
    // The calls of the last message wait for their results: allowed, as in a live session.
    const waiting = exchangesSnapshot();
    waiting.messages.splice(-2, 2);
    const restored = AgentSession.fromJSON(waiting);
    restored.addToolResults([{ type: "tool_result", toolUseId: "call_0", content: "late" }]);
    expect(restored.messages).toHaveLength(11);
  });

  it("refuses a result whose call was removed, naming the message", () => {
    const snapshot = exchangesSnapshot();
    snapshot.messages.splice(5, 1);
    expect(refusedAt(() => AgentSession.fromJSON(snapshot))).toContain("messages.5.content");
  });

  it("refuses a result that answers another call's id", () => {
    const snapshot = exchangesSnapshot();
    snapshot.messages[5]!.content[0]!.id = "call_1";
    expect(refusedAt(() => AgentSession.fromJSON(snapshot))).toEqual([
      "messages.6.content",
      "messages.5",
      "messages.6",
    ]);
  });

  it("refuses a call's id used twice while it waits, and calls left unanswered", () => {
    const twice = exchangesSnapshot();
    const call = twice.messages[5]!.content[0]!;
    twice.messages[5]!.content.push({ ...call });
    expect(refusedAt(() => AgentSession.fromJSON(twice))).toContain("messages.5.content.1.id");
    const unanswered = exchangesSnapshot();
    unanswered.messages.splice(6, 1);
    expect(refusedAt(() => AgentSession.fromJSON(unanswered))).toContain("messages.6");
  });
});

describe("a snapshot whose archive.next is behind its handles (review 55c #3)", () => {
  /** Clamps a large result of a new call `id`; its recall handle. */
  function clampInto(session: AgentSession, id: string): string {
    session.addUserText(`read ${id}`);
    session.addAssistant([{ type: "tool_use", id, name: "read", input: {} }]);
    session.addToolResults([
      { type: "tool_result", toolUseId: id, content: `ORIGINAL-${id} ${"row\n".repeat(10_000)}` },
    ]);
    return /\[recall (r\d+-[0-9a-f]{4})\]/.exec(JSON.stringify(session.messages.at(-1)))![1]!;
  }
  const originalOf = async (session: AgentSession, handle: string) => {
    const record = await session.recall(handle);
    return record.kind === "tool_result" ? String(record.original.content).slice(0, 12) : "";
  };

  it("restores with the counter past them: a later clamp overwrites no original", async () => {
    const first = new AgentSession({ contextLimit: 20_000, compactor: false });
    const kept = clampInto(first, "ta");
    const snapshot = JSON.parse(JSON.stringify(first.toJSON())) as SessionSnapshot;
    snapshot.archive!.next = 1;
    const restored = AgentSession.fromJSON(snapshot);
    const later = clampInto(restored, "tb");
    expect(later).not.toBe(kept);
    expect(await originalOf(restored, kept)).toBe("ORIGINAL-ta ");
    expect(await originalOf(restored, later)).toBe("ORIGINAL-tb ");
    expect(restored.toJSON().archive!.next).toBeGreaterThan(2);
  });

  it("past the handles its messages name, whose records the snapshot does not hold", async () => {
    const first = new AgentSession({ contextLimit: 20_000, compactor: false });
    const kept = clampInto(first, "ta");
    const snapshot = JSON.parse(JSON.stringify(first.toJSON())) as SessionSnapshot;
    snapshot.archive = { next: 1 };
    const restored = AgentSession.fromJSON(snapshot);
    expect(clampInto(restored, "tb")).not.toBe(kept);
  });
});

describe("a snapshot's meter.correction (review 55c #4)", () => {
  function correctedSnapshot(correction: number): SessionSnapshot {
    const snapshot = JSON.parse(JSON.stringify(exchangesSnapshot())) as SessionSnapshot;
    snapshot.meter.correction = correction;
    return snapshot;
  }

  it("restores an honest one as it is", () => {
    const session = new AgentSession({ contextLimit: 20_000, compactor: false });
    session.addUserText("x ".repeat(4_000));
    session.addAssistant([{ type: "text", text: "ok" }]);
    session.recordUsage({ inputTokens: 9_000, outputTokens: 10 });
    const restored = AgentSession.fromJSON(JSON.parse(JSON.stringify(session.toJSON())));
    expect(restored.contextUsed).toBe(session.contextUsed);
    expect(restored.toJSON().meter).toEqual(session.toJSON().meter);
  });

  it("restores an honest one whose usage was recorded before its reply was appended (review 55g #3)", () => {
    const { logger, warnings } = warningLogger();
    const session = new AgentSession({ contextLimit: 200_000, compactor: false });
    session.addUserText("word ".repeat(8_000));
    session.recordUsage({ inputTokens: 5_200, outputTokens: 20 });
    session.addAssistant([{ type: "text", text: "z".repeat(20_000) }]);
    const snapshot = JSON.parse(JSON.stringify(session.toJSON()));
    const restored = AgentSession.fromJSON(snapshot, { logger });
    expect(restored.contextUsed).toBe(session.contextUsed);
    expect(warnings).toEqual([]);
  });

  it("restores a fractional one, within the meter's range, without a warning", () => {
    const { logger, warnings } = warningLogger();
    const restored = AgentSession.fromJSON(correctedSnapshot(1_000.4), { logger });
    expect(restored.toJSON().meter.correction).toBe(1_000);
    expect(warnings).toEqual([]);
  });

  it("far below the estimate is held where a trusted usage could leave it: the measure grows", () => {
    const restored = AgentSession.fromJSON(correctedSnapshot(-1e300));
    const before = restored.contextUsed;
    expect(before).toBeGreaterThanOrEqual(0);
    restored.addUserText("more ".repeat(3_000));
    expect(restored.contextUsed).toBeGreaterThan(before + 2_000);
  });

  it("above the window is held to the window, and told to the logger", () => {
    const { logger, warnings } = warningLogger();
    const restored = AgentSession.fromJSON(correctedSnapshot(1e300), { logger });
    expect(restored.contextUsed).toBeLessThan(2 * restored.contextLimit);
    expect(restored.toJSON().meter.correction).toBe(restored.contextLimit);
    expect(warnings.join(" ")).toMatch("meter.correction");
  });
});

describe("a snapshot with archived originals restored with archive: false (review 55c #8)", () => {
  it("restores, and tells the logger the originals are dropped", async () => {
    const first = new AgentSession({ contextLimit: 20_000, compactor: false });
    first.addUserText("read it");
    first.addAssistant([{ type: "tool_use", id: "t1", name: "read", input: {} }]);
    first.addToolResults([
      { type: "tool_result", toolUseId: "t1", content: "row\n".repeat(10_000) },
    ]);
    const { logger, warnings } = warningLogger();
    const restored = AgentSession.fromJSON(first.toJSON(), { archive: false, logger });
    expect(restored.messages).toHaveLength(3);
    expect(warnings.join(" ")).toMatch(/archive: false.*1 archived originals are dropped/);
    // Without records, nothing is dropped and nothing is said.
    const quiet = warningLogger();
    AgentSession.fromJSON(exchangesSnapshot(), { archive: false, logger: quiet.logger });
    expect(quiet.warnings).toEqual([]);
  });
});

describe("a compaction asked for and not run yet (review 55c #9)", () => {
  it("travels in the snapshot, with its instructions", async () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("Read the repo.");
    session.addAssistant([{ type: "text", text: "Done reading." }]);
    session.requestCompaction({ instructions: "Keep the port 8443." });
    const snapshot = JSON.parse(JSON.stringify(session.toJSON()));
    expect(snapshot.compactionRequested).toEqual({ instructions: "Keep the port 8443." });
    const restored = AgentSession.fromJSON(snapshot);
    expect(restored.compactionRequested).toBe(true);
    expect(restored.toJSON().compactionRequested).toEqual({ instructions: "Keep the port 8443." });
    const plain = JSON.parse(JSON.stringify(new AgentSession({ contextLimit: 100_000 }).toJSON()));
    expect(Object.hasOwn(plain, "compactionRequested")).toBe(false);
  });

  it("a malformed one is refused naming the field, nothing applied", () => {
    const snapshot = JSON.parse(
      JSON.stringify(new AgentSession({ contextLimit: 100_000 }).toJSON()),
    );
    snapshot.compactionRequested = { instructions: 5 };
    expect(() => AgentSession.fromJSON(snapshot)).toThrow(/compactionRequested\.instructions/);
  });
});
