import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  type MessageContent,
  ToolMessage,
} from "@langchain/core/messages";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import {
  AnthropicLikeModel,
  pairingProblems,
  readFileTool,
} from "../../test/support/langchain-anthropic.js";
import { estimateTokens, ThresholdCompactor, ValidationError } from "../index.js";
import { MemoryArchive } from "../store/index.js";
import {
  compactionMiddleware,
  compactLangChainMessages,
  fromLangChainMessages,
  recallTool,
  toLangChainMessages,
} from "./index.js";

// Review 57g: LangChain's standard blocks take their data as a `Uint8Array` (a Node `Buffer`
// is one), and every entry refused such a message ("must be a plain JSON object, not a
// Buffer"): a conversation with one attachment could not be compacted at all.

type Part = Record<string, unknown>;

/** Bytes `0..length-1`, varied: `seed` tells two attachments apart. */
function bytesOf(length: number, seed = 0): Uint8Array {
  return Uint8Array.from({ length }, (_, index) => (index * 7 + seed) % 256);
}

/** A text and one block of each standard media type, their data `data`. */
function mediaBlocks(data: Uint8Array): Part[] {
  return [
    { type: "text", text: "What is in these?" },
    { type: "image", mimeType: "image/png", data },
    { type: "audio", mimeType: "audio/mpeg", data },
    { type: "file", mimeType: "application/pdf", data, metadata: { filename: "a.pdf" } },
    { type: "video", mimeType: "video/mp4", data },
    { type: "text-plain", mimeType: "text/plain", data },
    // The deprecated data block: binary `data` with `mime_type`.
    { type: "image", source_type: "base64", mime_type: "image/jpeg", data },
  ];
}

const content = (parts: Part[]) => parts as unknown as MessageContent;
const partsOf = (message: BaseMessage | undefined) => (message?.content ?? []) as Part[];

/** How `value` holds its data: `Buffer`, `Uint8Array` or its type. */
function kindOf(value: unknown): string {
  if (!(value instanceof Uint8Array)) return typeof value;
  return Buffer.isBuffer(value) ? "Buffer" : value.constructor.name;
}

/** Each part's data as its kind and hex bytes (a part without data: its type). */
const dataOf = (parts: Part[]) =>
  parts.map((part) =>
    part["data"] instanceof Uint8Array
      ? `${kindOf(part["data"])}:${Buffer.from(part["data"]).toString("hex")}`
      : String(part["type"]),
  );

const kinds: [string, (bytes: Uint8Array) => Uint8Array][] = [
  ["Buffer", (bytes) => Buffer.from(bytes)],
  ["Uint8Array", (bytes) => bytes],
];

describe.each(kinds)("LangChain blocks whose data is a %s", (kind, make) => {
  it("convert and come back with the same kind and bytes, in human, AI and tool messages", () => {
    const data = make(bytesOf(300));
    const input: BaseMessage[] = [
      new HumanMessage({ id: "u1", content: content(mediaBlocks(data)) }),
      new AIMessage({
        id: "a1",
        content: content([{ type: "image", mimeType: "image/png", data }]),
        tool_calls: [{ id: "call_1", name: "screenshot", args: {}, type: "tool_call" }],
      }),
      new ToolMessage({ id: "t1", tool_call_id: "call_1", content: content(mediaBlocks(data)) }),
    ];
    const ours = fromLangChainMessages(input, { sessionId: "s" });
    // An image is an image (its data base64), the other media carried whole.
    expect(ours[0]!.content.map((block) => block.type)).toEqual([
      "text",
      "image",
      "opaque",
      "opaque",
      "opaque",
      "opaque",
      "opaque",
    ]);
    const image = ours[0]!.content[1]!;
    expect(image.type === "image" && image.source).toEqual({
      type: "base64",
      mediaType: "image/png",
      data: Buffer.from(data).toString("base64"),
    });
    const back = toLangChainMessages(ours);
    for (const index of [0, 1, 2]) {
      expect(dataOf(partsOf(back[index]))).toEqual(dataOf(partsOf(input[index])));
      expect(partsOf(back[index]).map((part) => Object.keys(part))).toEqual(
        partsOf(input[index]).map((part) => Object.keys(part)),
      );
    }
    expect(dataOf(partsOf(back[0])).filter((data) => data.startsWith(`${kind}:`))).toHaveLength(6);
    expect((back[2] as ToolMessage).tool_call_id).toBe("call_1");
    // Converted again, the messages are the same.
    expect(
      fromLangChainMessages(back, { sessionId: "s" }).map((message) => message.content),
    ).toEqual(ours.map((message) => message.content));
  });

  it("are counted as the base64 a provider is sent (audio by its duration), not as a JSON array", () => {
    const bytes = bytesOf(30_000);
    const binary = fromLangChainMessages([
      new HumanMessage({ content: content(mediaBlocks(make(bytes))) }),
    ]);
    const base64 = Buffer.from(bytes).toString("base64");
    const asText = fromLangChainMessages([
      new HumanMessage({
        content: content(
          mediaBlocks(make(bytes)).map((part) =>
            "data" in part ? { ...part, data: base64 } : part,
          ),
        ),
      }),
    ]);
    // Within the few characters of the kind noted on each block.
    const tokens = estimateTokens(binary);
    expect(tokens).toBeGreaterThanOrEqual(estimateTokens(asText));
    expect(tokens).toBeLessThan(estimateTokens(asText) + 50);
    // A file's bytes as a JSON array of numbers would be 27k tokens; as base64, 10k.
    const file = fromLangChainMessages([
      new HumanMessage({
        content: content([{ type: "file", mimeType: "application/pdf", data: make(bytes) }]),
      }),
    ]);
    expect(estimateTokens(file)).toBeLessThan(base64.length / 4 + 50);
    // 30 kB of MP3 at its lowest bitrate is 30 seconds: 960 tokens, not 10k of base64.
    const audio = fromLangChainMessages([
      new HumanMessage({
        content: content([{ type: "audio", mimeType: "audio/mpeg", data: make(bytes) }]),
      }),
    ]);
    expect(estimateTokens(audio)).toBeLessThan(1_000);
  });

  it("compact: kept as the same objects, rebuilt with the same kind, removed into the archive", async () => {
    const image = make(bytesOf(2_000, 1));
    const pdf = make(bytesOf(20_000, 2));
    const messages: BaseMessage[] = [
      new HumanMessage({
        id: "u0",
        content: content([
          { type: "text", text: `Check the screen, then apply this: ${"change ".repeat(5_000)}` },
          { type: "image", mimeType: "image/png", data: image },
        ]),
      }),
      new AIMessage({
        id: "a0",
        content: "",
        tool_calls: [{ id: "s0", name: "screenshot", args: {} }],
      }),
      new ToolMessage({
        id: "t0",
        tool_call_id: "s0",
        content: content([
          { type: "text", text: "the report" },
          { type: "file", mimeType: "application/pdf", data: pdf },
        ]),
      }),
    ];
    for (let step = 1; step < 12; step += 1)
      messages.push(
        new AIMessage({
          id: `a${step}`,
          content: "",
          tool_calls: [{ id: `c${step}`, name: "read", args: {} }],
        }),
        new ToolMessage({
          id: `t${step}`,
          tool_call_id: `c${step}`,
          content: "x = 1;\n".repeat(500),
        }),
      );

    // Under the threshold: the very same messages.
    const kept = await compactLangChainMessages(messages, { contextLimit: 200_000 });
    expect(kept.compacted).toBe(false);
    expect(kept.messages).toBe(messages);

    const archive = new MemoryArchive();
    const { messages: out, compacted } = await compactLangChainMessages(messages, {
      contextLimit: 24_000,
      archive,
    });
    expect(compacted).toBe(true);
    expect(pairingProblems(out)).toEqual([]);
    // The user's message, its long paste clamped, is rebuilt: its image the same kind and bytes.
    const request = out.find((message) =>
      partsOf(message).some((part) => part["type"] === "image"),
    );
    expect(request).toBeDefined();
    expect(request).not.toBe(messages[0]);
    expect(dataOf(partsOf(request).filter((part) => part["type"] === "image"))).toEqual(
      dataOf(partsOf(messages[0]).slice(1)),
    );
    // The PDF's result went with the oldest messages: archived, recallable by the notice's handle.
    expect(out).not.toContain(messages[2]);
    const texts = out.map((message) => message.text).join("\n");
    const handle = /\[recall (r\d+-[0-9a-f]+)\]/.exec(texts)?.[1];
    expect(handle).toBeDefined();
    const record = archive.get("stateless", handle!);
    expect(JSON.stringify(record)).toContain(Buffer.from(pdf).toString("base64"));
    const recalled = String(await recallTool({ archive }).invoke({ handle: handle! }));
    expect(recalled).toContain("the report");
  });
});

describe("LangChain binary data, in a createAgent loop and at the edges", () => {
  it("lets compactionMiddleware run a thread holding binary attachments, the model sent them whole", async () => {
    const screenshot = Buffer.from(bytesOf(3_000, 3));
    const like = new AnthropicLikeModel({ contextWindow: 30_000, thinking: false });
    for (let step = 0; step < 30; step += 1)
      like.reply({ toolCalls: [{ name: "read_file", input: { path: `src/file-${step}.ts` } }] });
    like.reply({ text: "Done." });
    const events: string[] = [];
    const compaction = compactionMiddleware({
      contextLimit: 30_000,
      onEvent: (event) => events.push(event.type),
      compactor: new ThresholdCompactor({
        threshold: 0.5,
        keepRecentToolUses: 3,
        toolCompaction: "redact",
      }),
    });
    const agent = createAgent({
      model: like.model,
      tools: [readFileTool],
      middleware: [compaction],
    });
    const result = await agent.invoke(
      {
        messages: [
          new HumanMessage({
            content: content([
              { type: "text", text: "Read every file; this is the screen." },
              { type: "image", mimeType: "image/png", data: screenshot },
            ]),
          }),
        ],
      },
      { configurable: { thread_id: "binary" }, recursionLimit: 1_000 },
    );
    expect(result.messages.at(-1)?.text).toBe("Done.");
    expect(like.refusals).toEqual([]);
    const lastCall = like.model.calls.at(-1)!.messages;
    const sent = lastCall.flatMap(partsOf).find((part) => part["type"] === "image");
    expect(sent?.["data"]).toBe(screenshot);
    expect(events).toContain("compaction_end");
  });

  it("refuses a carried block's field named as the adapter's marks, which would be read as one", () => {
    const marked = new HumanMessage({
      content: content([
        { type: "file", mimeType: "application/pdf", data: "AAAA", "langchain:data": "bytes" },
      ]),
    });
    expect(() => fromLangChainMessages([marked])).toThrow(ValidationError);
    expect(() => fromLangChainMessages([marked])).toThrow(
      /\[0\]\.content\[0\]\.langchain:data: is a name/,
    );
  });
});
