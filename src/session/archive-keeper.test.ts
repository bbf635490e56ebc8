import { describe, expect, it } from "vitest";
import { AgentSession, ThresholdCompactor } from "../index.js";
import { MemoryArchive } from "../store/index.js";
import { ConversationBuilder } from "../testing/index.js";
import { sessionTag } from "./archive.js";

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
