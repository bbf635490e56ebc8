import type { MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { compactAnthropicMessages } from "../../src/anthropic/index.js";
import { compactLangChainMessages } from "../../src/langchain/index.js";
import {
  type ArchiveRecord,
  type CompactionArchive,
  MemoryArchive,
} from "../../src/store/index.js";

// A stateless path names each handle after what its record holds (the same history compacted
// again names the same handles), with a 53-bit hash: hostile tool output can be made to
// collide, and a handle may already name another record in a shared archive. No original is
// then lost, nor recalled as another's: the second record goes under a variant of the handle,
// and its placeholder names that variant. Before, the archive kept one of the two (within one
// request the second overwrote the first; across requests the second was never stored) and a
// recall of either handle answered with the other tool's output.

/** Two tool results whose records' handles collide (found by a birthday search). */
const PAD = "z".repeat(1500);
const COLLIDING = { t1: `${PAD}127d547f94935e`, t2: `${PAD}1b1d0146aa3b89` };

/** A request, then reads `t<n>` whose results are `results[t<n>]` (or filler). */
function reads(results: Record<string, string>, count = 12): MessageParam[] {
  const history: MessageParam[] = [{ role: "user", content: "Fix the build." }];
  for (let call = 1; call <= count; call += 1) {
    const id = `t${call}`;
    history.push(
      {
        role: "assistant",
        content: [{ type: "tool_use", id, name: "read_file", input: { path: `src/f${call}.ts` } }],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: id,
            content: results[id] ?? `R${call}${"y".repeat(1500)}`,
          },
        ],
      },
    );
  }
  return history;
}

/** The handle the placeholder of tool result `id` names in Anthropic messages. */
function handleOf(messages: readonly MessageParam[], id: string): string | undefined {
  for (const message of messages) {
    if (typeof message.content === "string") continue;
    for (const block of message.content) {
      if (block.type !== "tool_result" || block.tool_use_id !== id) continue;
      const text =
        typeof block.content === "string" ? block.content : JSON.stringify(block.content);
      return /\[recall (r\d+-[0-9a-f]{4})\]/.exec(text)?.[1];
    }
  }
  return undefined;
}

const contentOf = (record: ArchiveRecord | undefined) =>
  record?.kind === "tool_result" ? record.original.content : undefined;

const OPTIONS = { contextLimit: 6_000, sessionId: "s" } as const;

describe("content handles that collide", () => {
  it("within one request: each original under a handle of its own, recalled as itself", async () => {
    const archive = new MemoryArchive();
    const { messages } = await compactAnthropicMessages(reads(COLLIDING), { ...OPTIONS, archive });
    const first = handleOf(messages, "t1");
    const second = handleOf(messages, "t2");
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(contentOf(archive.get("s", first!))).toBe(COLLIDING.t1);
    expect(contentOf(archive.get("s", second!))).toBe(COLLIDING.t2);
    // The same history again: the same request, byte for byte, and no record more.
    const count = archive.records("s").length;
    const again = await compactAnthropicMessages(reads(COLLIDING), { ...OPTIONS, archive });
    expect(JSON.stringify(again.messages)).toBe(JSON.stringify(messages));
    expect(archive.records("s")).toHaveLength(count);
  });

  it("across requests: a handle the archive holds for other content moves to a variant", async () => {
    const archive = new MemoryArchive();
    // An earlier request archived t1's result; this one masks only t2's, whose handle collides.
    const earlier = await compactAnthropicMessages(reads({ t1: COLLIDING.t1 }), {
      ...OPTIONS,
      archive,
    });
    const taken = handleOf(earlier.messages, "t1")!;
    const later = reads({ t2: COLLIDING.t2 });
    const { messages } = await compactAnthropicMessages(later, { ...OPTIONS, archive });
    const moved = handleOf(messages, "t2");
    expect(moved).toBeDefined();
    expect(moved).not.toBe(taken);
    expect(contentOf(archive.get("s", taken))).toBe(COLLIDING.t1);
    expect(contentOf(archive.get("s", moved!))).toBe(COLLIDING.t2);
    // Sent again, the same variant: the same request, and no record more.
    const count = archive.records("s").length;
    const again = await compactAnthropicMessages(later, { ...OPTIONS, archive });
    expect(JSON.stringify(again.messages)).toBe(JSON.stringify(messages));
    expect(archive.records("s")).toHaveLength(count);
  });

  it("in compactLangChainMessages: another record under the handle stays, this one moves", async () => {
    const history: BaseMessage[] = [new HumanMessage("Fix the build.")];
    for (let call = 1; call <= 12; call += 1) {
      const id = `call_${call}`;
      history.push(
        new AIMessage({
          content: `step ${call}`,
          tool_calls: [
            { id, name: "read_file", args: { path: `src/f${call}.ts` }, type: "tool_call" },
          ],
        }),
        new ToolMessage({ tool_call_id: id, content: `contents of f${call}\n${"x".repeat(2000)}` }),
      );
    }
    const handlesIn = (messages: readonly BaseMessage[]) =>
      [
        ...JSON.stringify(messages.map((message) => message.content)).matchAll(
          /\[recall (r\d+-[0-9a-f]{4})\]/g,
        ),
      ].map((match) => match[1]!);
    // Where this history's records go, in an archive of their own.
    const probe = await compactLangChainMessages(history, {
      contextLimit: 6_000,
      archive: new MemoryArchive(),
    });
    const [handle] = handlesIn(probe.messages);
    expect(handle).toBeDefined();
    // A shared archive that already holds another record under that handle.
    const archive = new MemoryArchive();
    const other: ArchiveRecord = {
      handle: handle!,
      kind: "tool_result",
      toolUseId: "elsewhere",
      original: {
        type: "tool_result",
        toolUseId: "elsewhere",
        content: "another's",
        isError: false,
      },
    };
    archive.put("stateless", [other]);
    const { messages } = await compactLangChainMessages(history, { contextLimit: 6_000, archive });
    const [moved] = handlesIn(messages);
    expect(moved).toBeDefined();
    expect(moved).not.toBe(handle);
    expect(archive.get("stateless", handle!)).toEqual(other);
    expect(JSON.stringify(archive.get("stateless", moved!))).toContain("contents of f");
  });

  it("an archive that gives records back with their keys in another order (JSONB) is no collision", async () => {
    // Each record kept as its JSON with every object's keys reversed, as a JSONB column may
    // give them back: the same record, not another one.
    const rows = new Map<string, string>();
    const reversed = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(reversed)
        : typeof value === "object" && value !== null
          ? Object.fromEntries(
              Object.entries(value)
                .reverse()
                .map(([key, item]) => [key, reversed(item)]),
            )
          : value;
    const archive: CompactionArchive = {
      put: (sessionId, records) => {
        for (const record of records)
          rows.set(`${sessionId}/${record.handle}`, JSON.stringify(reversed(record)));
      },
      get: (sessionId, handle) => {
        const row = rows.get(`${sessionId}/${handle}`);
        return row === undefined ? undefined : (JSON.parse(row) as ArchiveRecord);
      },
    };
    const history = reads({});
    const first = await compactAnthropicMessages(history, { ...OPTIONS, archive });
    expect(first.compacted).toBe(true);
    const count = rows.size;
    expect(count).toBeGreaterThan(0);
    for (let call = 0; call < 3; call += 1) {
      const again = await compactAnthropicMessages(history, { ...OPTIONS, archive });
      expect(again.error).toBeUndefined();
      expect(JSON.stringify(again.messages)).toBe(JSON.stringify(first.messages));
    }
    expect(rows.size).toBe(count);
  });

  // Two long requests whose clamps' handles collide (found by a birthday search), each cut to
  // fit: each marker recalls its own text. Before, the second record overwrote the first.
  const BASE = `${"word ".repeat(12_000)}END `;
  const CLAMPED = { a: `${BASE}188177646338c3`, b: `${BASE}0d82fa00afee06` };

  it("two texts one request clamps: each under a handle of its own", async () => {
    const archive = new MemoryArchive();
    const history: MessageParam[] = [
      { role: "user", content: CLAMPED.a },
      { role: "assistant", content: "noted" },
      { role: "user", content: CLAMPED.b },
    ];
    const { messages } = await compactAnthropicMessages(history, { contextLimit: 40_000, archive });
    const handles = [...JSON.stringify(messages).matchAll(/\[recall (r\d+-[0-9a-f]{4})\]/g)].map(
      (match) => match[1]!,
    );
    expect(handles).toHaveLength(2);
    const texts = handles.map((handle) => JSON.stringify(archive.get("stateless", handle)));
    expect(texts[0]).toContain("188177646338c3");
    expect(texts[1]).toContain("0d82fa00afee06");
  });

  it("the same in compactLangChainMessages", async () => {
    const archive = new MemoryArchive();
    const history = [
      new HumanMessage(CLAMPED.a),
      new AIMessage("noted"),
      new HumanMessage(CLAMPED.b),
    ];
    const { messages } = await compactLangChainMessages(history, { contextLimit: 40_000, archive });
    const handles = [
      ...JSON.stringify(messages.map((message) => message.content)).matchAll(
        /\[recall (r\d+-[0-9a-f]{4})\]/g,
      ),
    ].map((match) => match[1]!);
    expect(handles).toHaveLength(2);
    const texts = handles.map((handle) => JSON.stringify(archive.get("stateless", handle)));
    expect(texts[0]).toContain("188177646338c3");
    expect(texts[1]).toContain("0d82fa00afee06");
  });

  // A clamp sizes its marker with the handle it names; a variant taken as the record is kept
  // (the archive holds another record under it) replaces that handle. Content handles have 16
  // digits each, so the variant leaves the text's length: within its share, and the output is
  // a fixed point. Before, the clamp handle of `toolu_168`'s output had 11 digits and its variant
  // 16: the text came out 3 characters over its share, and a second pass cut it again (review
  // 55h, finding 2).
  it("a clamped text whose handle moves to a variant stays within its share", async () => {
    const window = 5_092;
    const share = Math.floor(0.25 * window) * 4;
    const output = "o".repeat(12_000);
    const answered = (isError: boolean): MessageParam[] => [
      { role: "user", content: "task" },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_168", name: "sh", input: {} }],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_168", content: output, is_error: isError },
        ],
      },
      { role: "assistant", content: "done" },
    ];
    const archive = new MemoryArchive();
    const options = { ...OPTIONS, contextLimit: window, archive };
    const earlier = await compactAnthropicMessages(answered(false), options);
    const { messages } = await compactAnthropicMessages(answered(true), options);
    const taken = handleOf(earlier.messages, "toolu_168");
    const moved = handleOf(messages, "toolu_168");
    expect(moved).toBeDefined();
    expect(moved).not.toBe(taken);
    expect(moved).toHaveLength(taken!.length);
    const [result] = messages[2]!.content as ToolResultBlockParam[];
    expect(String(result!.content).length).toBeLessThanOrEqual(share);
    const again = await compactAnthropicMessages(messages, options);
    expect(again.compacted).toBe(false);
  });
});
