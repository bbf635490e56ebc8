import { describe, expect, it } from "vitest";
import {
  AgentSession,
  type ContentBlock,
  type Message,
  validateConversation,
} from "../../src/index.js";

// A text too long for the window is clamped as it is taken in. Thinking the model signed after
// seeing that text whole is then stale: the API's preserved-thinking check refuses it. Messages
// taken in together (a history imported with `append`) are the case; in a live loop the model
// sees the clamped text before it thinks again, so its thinking stays.

const LONG = "line of output\n".repeat(2_000); // ~7,500 tokens: over a quarter of 20,000

const base = { sessionId: "s1", turnId: { owner: "u", number: 1 }, createdAt: new Date(0) };
const message = (id: string, role: Message["role"], content: ContentBlock[]): Message =>
  ({ ...base, id, role, content }) as Message;
const thinking = (text: string): ContentBlock => ({
  type: "thinking",
  thinking: text,
  signature: `sig-${text}`,
});
const call = (id: string): ContentBlock => ({
  type: "tool_use",
  id,
  name: "read",
  input: { path: `${id}.ts` },
});
const result = (id: string, content: string): ContentBlock => ({
  type: "tool_result",
  toolUseId: id,
  content,
  isError: false,
});

/** A history written elsewhere: two reads, the first result long, thinking before each call. */
const history = (): Message[] => [
  message("m1", "user", [{ type: "text", text: "Read a.ts and b.ts." }]),
  message("m2", "assistant", [thinking("first"), call("a")]),
  message("m3", "user", [result("a", LONG)]),
  message("m4", "assistant", [thinking("second"), call("b")]),
  message("m5", "user", [result("b", "short")]),
];

const thinkingOf = (messages: readonly Message[]) =>
  messages.flatMap((each) =>
    each.content.flatMap((block) => (block.type === "thinking" ? [block.thinking] : [])),
  );

describe("thinking after a text clamped as it was taken in", () => {
  it("goes when taken in with that text; the thinking before it stays", () => {
    const session = new AgentSession({ contextLimit: 20_000 });
    session.append(...history());
    const clamped = session.messages[2]!.content[0]!;
    expect(clamped.type === "tool_result" && clamped.content.length).toBeLessThan(LONG.length);
    expect(thinkingOf(session.messages)).toEqual(["first"]);
    // The open exchange whose call lost its thinking is closed, as after a compaction.
    expect(session.messages.at(-1)).toMatchObject({ generated: "continuation" });
    expect(validateConversation(session.messages)).toEqual([]);
  });

  it("stays with keepStaleThinking", () => {
    const session = new AgentSession({ contextLimit: 20_000, keepStaleThinking: true });
    session.append(...history());
    expect(thinkingOf(session.messages)).toEqual(["first", "second"]);
  });

  it("stays in a live loop: the model thought after seeing the clamped text", () => {
    const session = new AgentSession({ contextLimit: 20_000 });
    const [ask, first, long, second, short] = history();
    session.append(ask!, first!);
    session.append(long!);
    session.append(second!, short!);
    expect(thinkingOf(session.messages)).toEqual(["first", "second"]);
    expect(session.messages).toHaveLength(5);
  });

  it("stays when nothing is clamped", () => {
    const session = new AgentSession({ contextLimit: 200_000 });
    session.append(...history());
    expect(thinkingOf(session.messages)).toEqual(["first", "second"]);
    expect(session.messages).toHaveLength(5);
  });
});
