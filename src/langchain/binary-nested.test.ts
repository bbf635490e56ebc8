import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  type MessageContent,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { pairingProblems } from "../../test/support/langchain-anthropic.js";
import { AgentSession, ValidationError } from "../index.js";
import { compactLangChainMessages, fromLangChainMessages, toLangChainMessages } from "./index.js";

// Review 58c: binary data was refused ("must be a plain JSON object, not a Uint8Array") in a
// SystemMessage's blocks and below a block's top-level `data` (Bedrock's `document.source.bytes`,
// which ChatBedrockConverse sends); an ArrayBuffer, which LangChain's blocks do not take, was
// refused as "not a ArrayBuffer".

type Part = Record<string, unknown>;

const bytesOf = (length: number, seed: number) =>
  Uint8Array.from({ length }, (_, index) => (index * 13 + seed) % 256);

const content = (parts: Part[]) => parts as unknown as MessageContent;

/** `value` with each binary value as its kind and hex bytes: what must come back the same. */
function described(value: unknown): unknown {
  if (value instanceof Uint8Array)
    return `${Buffer.isBuffer(value) ? "Buffer" : value.constructor.name}:${Buffer.from(value).toString("hex")}`;
  if (Array.isArray(value)) return value.map(described);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, described(item)]));
}

const contents = (messages: readonly BaseMessage[]) =>
  messages.map((message) => described(message.content));

/** A Bedrock document block: its bytes below the top level. */
const bedrockDocument = (bytes: Uint8Array) => ({
  type: "document",
  document: { format: "pdf", name: "spec", source: { bytes } },
});

const kinds: [string, (bytes: Uint8Array) => Uint8Array][] = [
  ["Buffer", (bytes) => Buffer.from(bytes)],
  ["Uint8Array", (bytes) => bytes],
];

describe.each(kinds)("LangChain binary data as a %s, in system messages and nested", (_, make) => {
  const history = (): BaseMessage[] => [
    new SystemMessage({
      content: content([
        { type: "text", text: "Answer from the attached style guide." },
        { type: "file", mimeType: "application/pdf", data: make(bytesOf(200, 1)) },
      ]),
    }),
    new HumanMessage({
      id: "u1",
      content: content([
        { type: "text", text: "Read the spec." },
        bedrockDocument(make(bytesOf(300, 2))),
      ]),
    }),
    new AIMessage({
      id: "a1",
      content: content([{ type: "image", source: { type: "bytes", bytes: make(bytesOf(50, 3)) } }]),
      tool_calls: [{ id: "c1", name: "fetch", args: {}, type: "tool_call" }],
    }),
    new ToolMessage({
      id: "t1",
      tool_call_id: "c1",
      content: content([
        {
          type: "file",
          mimeType: "application/pdf",
          data: "",
          metadata: { raw: make(bytesOf(40, 4)) },
        },
      ]),
    }),
  ];

  it("convert and come back as the same kind with the same bytes", () => {
    const input = history();
    const out = toLangChainMessages(fromLangChainMessages(input));
    expect(out.map((message) => message.type)).toEqual(["system", "human", "ai", "tool"]);
    expect(contents(out)).toEqual(contents(input));
    // Base64 in our messages, JSON throughout: a snapshot holds them.
    expect(JSON.stringify(fromLangChainMessages(input))).toContain(
      Buffer.from(bytesOf(300, 2)).toString("base64"),
    );
  });

  it("compact: a rebuilt message and a session's output keep their kind and bytes", async () => {
    const input = history();
    const paste = new HumanMessage({
      id: "u2",
      content: content([
        { type: "text", text: `Apply this: ${"change ".repeat(6_000)}` },
        bedrockDocument(make(bytesOf(100, 5))),
      ]),
    });
    const messages = [...input, new AIMessage({ id: "a2", content: "Read." }), paste];
    const { messages: out, compacted } = await compactLangChainMessages(messages, {
      contextLimit: 12_000,
    });
    expect(compacted).toBe(true);
    expect(pairingProblems(out)).toEqual([]);
    // The paste, clamped, is rebuilt: its document the same kind and bytes.
    const rebuilt = out.find((message) => message.id === "u2");
    expect(rebuilt).toBeDefined();
    expect(rebuilt).not.toBe(paste);
    expect(described((rebuilt!.content as Part[]).at(-1))).toEqual(
      described((paste.content as unknown as Part[]).at(-1)),
    );
    // A session's compacted history, given back whole: the system message rebuilt the same.
    const session = new AgentSession({ contextLimit: 12_000 });
    session.append(...fromLangChainMessages(messages, { sessionId: session.sessionId }));
    await session.forceCompact();
    const back = toLangChainMessages(session.messages);
    expect(back[0]!.type).toBe("system");
    expect(described(back[0]!.content)).toEqual(described(input[0]!.content));
  });
});

describe("an ArrayBuffer in a LangChain message", () => {
  const buffer = () => bytesOf(16, 0).slice().buffer;
  const refusals: [string, BaseMessage[], string][] = [
    [
      "as a block's data",
      [
        new HumanMessage({
          content: content([{ type: "image", mimeType: "image/png", data: buffer() }]),
        }),
      ],
      "[0].content[0].data",
    ],
    [
      "nested",
      [new HumanMessage({ content: content([bedrockDocument(buffer() as never)]) })],
      "[0].content[0].document.source.bytes",
    ],
    [
      "in a system message",
      [
        new SystemMessage({
          content: content([{ type: "file", mimeType: "application/pdf", data: buffer() }]),
        }),
        new HumanMessage("Hi."),
      ],
      "[0].content[0].data",
    ],
  ];

  // LangChain's blocks take a Uint8Array or base64 text, and its chat models send only those.
  it.each(refusals)(
    "is refused by name %s: LangChain's models cannot send it",
    async (_, messages, path) => {
      const message = `${path}: is an ArrayBuffer, which LangChain's content blocks do not take`;
      expect(() => fromLangChainMessages(messages)).toThrow(ValidationError);
      expect(() => fromLangChainMessages(messages)).toThrow(message);
      await expect(compactLangChainMessages(messages, { contextLimit: 100_000 })).rejects.toThrow(
        message,
      );
    },
  );
});
