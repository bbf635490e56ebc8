import { describe, expect, it } from "vitest";
import { warningLogger } from "../../test/support/warning-logger.js";
import type { ArchiveRecord } from "../core/archive-record.js";
import { AgentSession, ThresholdCompactor } from "../index.js";
import { MemoryArchive } from "../store/index.js";
import { ConversationBuilder } from "../testing/index.js";
import { sessionTag } from "./archive.js";
import type { SessionSnapshot } from "./snapshot.js";

const handlesIn = (session: AgentSession) =>
  [...JSON.stringify(session.messages).matchAll(/\[recall (r(\d+)-[0-9a-f]{4})\]/g)].map(
    (match) => match[1]!,
  );

describe("recall handles of a conversation taken over", () => {
  it("continue after the highest one its messages name: a shared archive keeps every original", async () => {
    const archive = new MemoryArchive();
    const tag = sessionTag("thread-7");
    const options = {
      contextLimit: 200_000,
      sessionId: "thread-7",
      archive,
      compactor: new ThresholdCompactor({ toolCompaction: "redact", keepRecentTurns: 1 }),
    };
    // An earlier session of the same id archived r1..r5; its placeholders are in the history.
    archive.put("thread-7", [
      {
        handle: `r5-${tag}`,
        kind: "tool_input",
        toolUseId: "toolu_old",
        original: { path: "old.ts" },
      },
    ]);
    const history = new ConversationBuilder({ sessionId: "thread-7" })
      .user("First request.")
      .toolCall({
        name: "read_file",
        input: { path: "old.ts" },
        result: `[Content redacted] [recall r5-${tag}]`,
      })
      .toolCall({ name: "read_file", input: { path: "a.ts" }, result: "a".repeat(4_000) })
      .user("Second request.")
      .build();
    const session = new AgentSession(options);
    session.append(...history);
    await session.forceCompact();

    const fresh = handlesIn(session).filter((handle) => handle !== `r5-${tag}`);
    expect(fresh.length).toBeGreaterThan(0);
    for (const handle of fresh) expect(Number(/^r(\d+)/.exec(handle)?.[1])).toBeGreaterThan(5);
    // The earlier original is still there, under its own handle.
    expect(await session.recall(`r5-${tag}`)).toMatchObject({ toolUseId: "toolu_old" });
  });

  it("ignore another session's marks and text that only looks like one", () => {
    const session = new AgentSession({ contextLimit: 200_000, sessionId: "thread-8" });
    const tag = sessionTag("thread-8");
    session.addUserText(`[recall r9-ffff] [recall r99999999999999999999-${tag}] [recall r-${tag}]`);
    expect(session.toJSON().archive?.next).toBe(1);
    session.addUserText(`Quoted: [recall r12-${tag}].`);
    expect(session.toJSON().archive?.next).toBe(13);
  });
});

describe("a recall mark in tool output (review 54b H1)", () => {
  it.each([9_007_199_254_740_991, 99_999_999_998])(
    "naming r%d does not stop the counter: each clamp keeps its own original",
    async (named) => {
      const sessionId = "conversation-42";
      const tag = sessionTag(sessionId);
      const session = new AgentSession({ sessionId, contextLimit: 20_000, compactor: false });
      session.addUserText("summarize these pages");
      session.addAssistant([{ type: "tool_use", id: "t0", name: "fetch", input: {} }]);
      session.addToolResults([
        { type: "tool_result", toolUseId: "t0", content: `Nice page. [recall r${named}-${tag}]` },
      ]);
      const handles: string[] = [];
      for (let page = 1; page <= 3; page += 1) {
        session.addAssistant([{ type: "tool_use", id: `t${page}`, name: "fetch", input: {} }]);
        session.addToolResults([
          {
            type: "tool_result",
            toolUseId: `t${page}`,
            content: `PAGE-${page} ${"content ".repeat(5_000)}`,
          },
        ]);
        const clamped = session.messages.at(-1)!.content[0] as { content: string };
        handles.push(/\[recall (r\d+-[0-9a-f]{4})\]/.exec(clamped.content)![1]!);
      }
      expect(new Set(handles).size).toBe(3);
      for (const [index, handle] of handles.entries()) {
        const record = await session.recall(handle);
        expect(record.kind === "tool_result" && String(record.original.content)).toMatch(
          `PAGE-${index + 1} `,
        );
      }
    },
  );
});

describe("restoring a snapshot's archive (review 54b H4, M1)", () => {
  function clampedSnapshot() {
    const first = new AgentSession({ contextLimit: 20_000, compactor: false });
    first.addUserText("read the big file");
    first.addAssistant([{ type: "tool_use", id: "t1", name: "read", input: {} }]);
    first.addToolResults([
      { type: "tool_result", toolUseId: "t1", content: "data ".repeat(10_000) },
    ]);
    return JSON.parse(JSON.stringify(first.toJSON())) as SessionSnapshot;
  }

  it.each([
    ["rejects", async () => Promise.reject(new Error("archive backend down"))],
    [
      "throws",
      () => {
        throw new Error("archive backend down");
      },
    ],
  ])(
    "an archive whose put %s is told to the logger, never an unhandled rejection",
    async (_, put) => {
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on("unhandledRejection", onUnhandled);
      try {
        const { logger, warnings } = warningLogger();
        const archive = { put, get: async () => undefined };
        const session = AgentSession.fromJSON(clampedSnapshot(), { archive, logger });
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(unhandled).toEqual([]);
        expect(warnings.join(" ")).toMatch("could not keep the restored records");
        expect(session.messages).toHaveLength(3);
      } finally {
        process.off("unhandledRejection", onUnhandled);
      }
    },
  );

  it("a recall right after restoring waits for the archive to take the records", async () => {
    const snapshot = clampedSnapshot();
    const slow = new (class extends MemoryArchive {
      override async put(sessionId: string, records: readonly ArchiveRecord[]): Promise<void> {
        await new Promise((resolve) => setTimeout(resolve, 20));
        super.put(sessionId, records);
      }
    })();
    const session = AgentSession.fromJSON(snapshot, { archive: slow });
    const handle = (snapshot.archive!.records![0] as { handle: string }).handle;
    expect((await session.recall(handle)).kind).toBe("tool_result");
  });

  it("a snapshot whose archive was external is refused without an archive", () => {
    const archive = new (class extends MemoryArchive {})();
    const first = new AgentSession({
      contextLimit: 20_000,
      compactor: false,
      archive: { put: archive.put.bind(archive), get: archive.get.bind(archive) },
    });
    first.addUserText("hello");
    const snapshot = first.toJSON();
    expect(snapshot.archive).toMatchObject({ external: true });
    expect(() => AgentSession.fromJSON(snapshot)).toThrow(/archive: is required/);
    expect(AgentSession.fromJSON(snapshot, { archive }).messages).toHaveLength(1);
  });
});

describe("a recalled record (review 54b M2)", () => {
  it("is frozen: editing it changes no later recall", async () => {
    const session = new AgentSession({ contextLimit: 20_000, compactor: false });
    session.addUserText("read it");
    session.addAssistant([{ type: "tool_use", id: "t1", name: "read", input: {} }]);
    session.addToolResults([
      { type: "tool_result", toolUseId: "t1", content: `ORIGINAL ${"row\n".repeat(10_000)}` },
    ]);
    const handle = /\[recall (r\d+-[0-9a-f]{4})\]/.exec(
      JSON.stringify(session.messages.at(-1)),
    )![1]!;
    const record = await session.recall(handle);
    expect(() => {
      (record as { toolUseId: string }).toolUseId = "EDITED";
    }).toThrow(TypeError);
    const again = await session.recall(handle);
    expect(again.kind === "tool_result" && again.toolUseId).toBe("t1");
  });
});

describe("what clamping cut, when the archive fails or is slow (review 54b H3, L2)", () => {
  function clampInto(session: AgentSession, id: string): string {
    session.addAssistant([{ type: "tool_use", id, name: "read", input: {} }]);
    session.addToolResults([
      { type: "tool_result", toolUseId: id, content: `ORIGINAL-${id} ${"row\n".repeat(10_000)}` },
    ]);
    return /\[recall (r\d+-[0-9a-f]{4})\]/.exec(JSON.stringify(session.messages.at(-1)))![1]!;
  }
  const originalOf = (record: ArchiveRecord) =>
    record.kind === "tool_result" ? String(record.original.content).slice(0, 12) : record.kind;

  it("is recalled while the archive is down, and put again with the next clamp's", async () => {
    let down = true;
    const kept = new MemoryArchive();
    const archive = {
      put: async (sessionId: string, records: readonly ArchiveRecord[]) => {
        if (down) throw new Error("archive backend down");
        kept.put(sessionId, records);
      },
      get: async (sessionId: string, handle: string) => kept.get(sessionId, handle),
    };
    const { logger, warnings } = warningLogger();
    const session = new AgentSession({ contextLimit: 20_000, compactor: false, archive, logger });
    session.addUserText("read the big files");
    const first = clampInto(session, "t1");
    expect(originalOf(await session.recall(first))).toBe("ORIGINAL-t1 ");
    expect(warnings.join(" ")).toMatch("could not keep what clamping cut");
    down = false;
    const second = clampInto(session, "t2");
    await session.recall(second);
    // The first clamp's original reached the archive with the second's.
    expect(kept.get(session.sessionId, first)).toBeDefined();
    expect(originalOf(await session.recall(first))).toBe("ORIGINAL-t1 ");
  });

  it("one original the archive never takes blocks no later clamp, and travels in the snapshot (review 54d #3, #4)", async () => {
    const kept = new MemoryArchive();
    let puts = 0;
    const archive = {
      put: async (sessionId: string, records: readonly ArchiveRecord[]) => {
        puts += 1;
        // Too large for the store's item: this one is refused every time.
        if (records.some((record) => originalOf(record) === "ORIGINAL-t1 "))
          throw new Error("item too large");
        kept.put(sessionId, records);
      },
      get: async (sessionId: string, handle: string) => kept.get(sessionId, handle),
    };
    const logger = { warn() {} };
    const session = new AgentSession({ contextLimit: 20_000, compactor: false, archive, logger });
    session.addUserText("read the big files");
    const handles = [clampInto(session, "t1")];
    for (let index = 2; index <= 8; index += 1) handles.push(clampInto(session, `t${index}`));
    await session.recall(handles.at(-1)!);
    // Every later original reached the archive; the refused one was tried a few times only.
    for (const handle of handles.slice(1))
      expect(kept.get(session.sessionId, handle)).toBeDefined();
    expect(puts).toBeLessThan(8 + 4);
    expect(originalOf(await session.recall(handles[0]!))).toBe("ORIGINAL-t1 ");
    // The snapshot carries it: restored with an archive that takes it, it is recalled.
    const snapshot = session.toJSON();
    expect(snapshot.archive?.records).toHaveLength(1);
    const restored = AgentSession.fromJSON(snapshot, { archive: kept });
    expect(originalOf(await restored.recall(handles[0]!))).toBe("ORIGINAL-t1 ");
  });

  it("a recall right after the clamp waits for a slow archive", async () => {
    const archive = new (class extends MemoryArchive {
      override async put(sessionId: string, records: readonly ArchiveRecord[]): Promise<void> {
        await new Promise((resolve) => setTimeout(resolve, 20));
        super.put(sessionId, records);
      }
    })();
    const session = new AgentSession({ contextLimit: 20_000, compactor: false, archive });
    session.addUserText("read the big file");
    expect(originalOf(await session.recall(clampInto(session, "t1")))).toBe("ORIGINAL-t1 ");
  });

  it("a snapshot taken while a slow MemoryArchive's put runs carries the original, once (review 55c #5)", async () => {
    const archive = new (class extends MemoryArchive {
      override async put(sessionId: string, records: readonly ArchiveRecord[]): Promise<void> {
        await new Promise((resolve) => setTimeout(resolve, 20));
        super.put(sessionId, records);
      }
    })();
    const session = new AgentSession({ contextLimit: 20_000, compactor: false, archive });
    session.addUserText("read the big files");
    const first = clampInto(session, "t1");
    await session.recall(first);
    const second = clampInto(session, "t2");
    const snapshot = JSON.parse(JSON.stringify(session.toJSON())) as SessionSnapshot;
    const handles = snapshot.archive!.records!.map(
      (record) => (record as { handle: string }).handle,
    );
    expect(handles).toEqual([first, second]);
    const restored = AgentSession.fromJSON(snapshot);
    expect(originalOf(await restored.recall(second))).toBe("ORIGINAL-t2 ");
    // Once the put landed, the record is the archive's only: still one in the snapshot.
    await session.recall(second);
    expect(session.toJSON().archive!.records).toHaveLength(2);
  });
});
