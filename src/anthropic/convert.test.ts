import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { messageParams } from "../../test/anthropic/arbitraries.js";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import { EARLIER_USER_MESSAGE_PREFIX, SUMMARY_PREFIX } from "../compactors/prompt.js";
import { ValidationError } from "../core/errors.js";
import type { ContentBlock, Message } from "../core/message.js";
import { AgentSession } from "../session/agent-session.js";
import { ConversationBuilder, toolResultBlock, toolUseBlock } from "../testing/builders.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import {
  fromAnthropicContent,
  fromAnthropicMessages,
  STRING_CONTENT_KEY,
  toAnthropicContent,
  toAnthropicMessages,
} from "./convert.js";

const FIXED = new Date("2026-01-01T00:00:00Z");

function counterIds(prefix = "m"): () => string {
  let count = 0;
  return () => `${prefix}-${++count}`;
}

function from(
  params: readonly unknown[],
  options: Parameters<typeof fromAnthropicMessages>[1] = {},
) {
  return fromAnthropicMessages(params, {
    sessionId: "s1",
    clock: () => FIXED,
    generateId: counterIds(),
    ...options,
  });
}

function roundTrip(params: readonly unknown[]): MessageParam[] {
  return toAnthropicMessages(from(params));
}

function validationError(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (ValidationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a ValidationError");
}

const loose = (role: string, content: unknown): unknown => ({ role, content });
const user = (content: MessageParam["content"]): MessageParam => ({ role: "user", content });
const assistant = (content: MessageParam["content"]): MessageParam => ({
  role: "assistant",
  content,
});

describe("fromAnthropicContent / toAnthropicContent: each block", () => {
  it("keeps text with cache_control and citations in extra", () => {
    const block = {
      type: "text",
      text: "see the doc",
      cache_control: { type: "ephemeral", ttl: "1h" },
      citations: [
        {
          type: "char_location",
          cited_text: "doc",
          document_index: 0,
          document_title: null,
          start_char_index: 0,
          end_char_index: 3,
        },
      ],
    } as const;
    const [ours] = fromAnthropicContent([block]);
    expect(ours).toEqual({
      type: "text",
      text: "see the doc",
      extra: { cache_control: block.cache_control, citations: block.citations },
    });
    expect(toAnthropicContent([ours!])).toEqual([block]);
  });

  it("maps the three image sources and keeps other image fields in extra", () => {
    const blocks = [
      {
        type: "image",
        source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" },
        cache_control: { type: "ephemeral" },
      },
      { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
      { type: "image", source: { type: "file", file_id: "file_011" } },
    ] as const;
    const ours = fromAnthropicContent(blocks);
    expect(ours).toEqual([
      {
        type: "image",
        source: { type: "base64", mediaType: "image/png", data: "iVBORw0KGgo=" },
        extra: { cache_control: { type: "ephemeral" } },
      },
      { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
      { type: "image", source: { type: "file", fileId: "file_011" } },
    ]);
    expect(toAnthropicContent(ours)).toEqual(blocks);
  });

  it("carries an image whose source we do not model as an opaque block", () => {
    const block = {
      type: "image",
      source: { type: "base64", media_type: "image/png", data: "AA==", detail: "high" },
    };
    expect(fromAnthropicContent([block])).toEqual([{ type: "opaque", block }]);
    const future = { type: "image", source: { type: "content", items: [] } };
    expect(fromAnthropicContent([future])).toEqual([{ type: "opaque", block: future }]);
  });

  it("keeps a thinking signature byte for byte, and redacted thinking", () => {
    const signature =
      "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds\u0000\u{1F600}\uD800 \n";
    const blocks = [
      { type: "thinking", thinking: "Let me think…", signature },
      { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw" },
    ] as const;
    const ours = fromAnthropicContent(blocks);
    expect(ours[0]).toEqual({ type: "thinking", thinking: "Let me think…", signature });
    const back = toAnthropicContent(ours);
    expect(back).toEqual(blocks);
    expect((back[0] as { signature: string }).signature).toBe(signature);
  });

  it("keeps tool_use fields we do not model (caller, cache_control) in extra", () => {
    const block = {
      type: "tool_use",
      id: "toolu_01",
      name: "read_file",
      input: { path: "a.ts", options: { lines: [1, 2] } },
      caller: { type: "direct" },
      cache_control: { type: "ephemeral" },
    } as const;
    const [ours] = fromAnthropicContent([block]);
    expect(ours).toEqual({
      type: "tool_use",
      id: "toolu_01",
      name: "read_file",
      input: block.input,
      extra: { caller: { type: "direct" }, cache_control: { type: "ephemeral" } },
    });
    expect(toAnthropicContent([ours!])).toEqual([block]);
  });

  it.each([
    [
      "string content, no is_error",
      { content: "42 files" },
      { content: "42 files", isError: false },
    ],
    ["is_error true", { content: "boom", is_error: true }, { content: "boom", isError: true }],
    [
      "is_error false (kept apart from absent)",
      { content: "ok", is_error: false },
      { content: "ok", isError: false, extra: { is_error: false } },
    ],
    ["content absent", {}, { content: "", isError: false }],
    [
      "content empty string",
      { content: "" },
      { content: "", isError: false, extra: { content: "" } },
    ],
    ["content empty array", { content: [] }, { content: [], isError: false }],
  ])("round-trips a tool_result with %s", (_name, fields, expected) => {
    const block = { type: "tool_result", tool_use_id: "toolu_01", ...fields };
    const [ours] = fromAnthropicContent([block]);
    expect(ours).toEqual({ type: "tool_result", toolUseId: "toolu_01", ...expected });
    expect(toAnthropicContent([ours!])).toEqual([block]);
  });

  it("round-trips tool_result array content with text, image and parts we do not model", () => {
    const block = {
      type: "tool_result",
      tool_use_id: "toolu_02",
      is_error: true,
      cache_control: { type: "ephemeral" },
      content: [
        { type: "text", text: "screenshot:", citations: null },
        { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/" } },
        { type: "document", source: { type: "text", media_type: "text/plain", data: "doc" } },
        { type: "search_result", source: "https://x.dev", title: "X", content: [] },
        { type: "tool_reference", tool_name: "grep" },
      ],
    };
    const [ours] = fromAnthropicContent([block]);
    expect(ours).toMatchObject({
      type: "tool_result",
      isError: true,
      extra: { cache_control: { type: "ephemeral" } },
      content: [
        { type: "text", text: "screenshot:", extra: { citations: null } },
        { type: "image", source: { type: "base64", mediaType: "image/jpeg", data: "/9j/" } },
        { type: "opaque", block: block.content[2] },
        { type: "opaque", block: block.content[3] },
        { type: "opaque", block: block.content[4] },
      ],
    });
    expect(toAnthropicContent([ours!])).toEqual([block]);
  });

  it("carries server-tool, compaction, document and unknown blocks opaquely", () => {
    const blocks = [
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x" } },
      {
        type: "web_search_tool_result",
        tool_use_id: "srvtoolu_1",
        content: [
          {
            type: "web_search_result",
            url: "https://x.dev",
            title: "X",
            encrypted_content: "abc",
            page_age: null,
          },
        ],
      },
      { type: "compaction", content: null, encrypted_content: "ZW5j" },
      { type: "compaction", content: "summary so far", encrypted_content: null },
      { type: "document", source: { type: "url", url: "https://x.dev/a.pdf" }, title: null },
      { type: "container_upload", file_id: "file_1" },
      { type: "hologram_2031", payload: { depth: 3, frames: [1, -0, 2.5] } },
    ];
    const ours = fromAnthropicContent(blocks);
    expect(ours.every((block) => block.type === "opaque")).toBe(true);
    expect(toAnthropicContent(ours)).toEqual(blocks);
  });

  it("drops our own fields (compactSummary) on the way out", () => {
    const result = toolResultBlock("toolu_1", "long output", { compactSummary: "short" });
    expect(toAnthropicContent([result])).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: "long output" },
    ]);
  });

  it("lets modelled fields win over a stray copy in extra", () => {
    const block: ContentBlock = {
      type: "text",
      text: "real",
      extra: { text: "stale", type: "image", cache_control: { type: "ephemeral" } },
    };
    expect(toAnthropicContent([block])).toEqual([
      { type: "text", text: "real", cache_control: { type: "ephemeral" } },
    ]);
  });

  it("treats undefined fields as absent, as JSON does", () => {
    const [ours] = fromAnthropicContent([
      { type: "text", text: "a", cache_control: undefined, citations: undefined },
    ]);
    expect(ours).toEqual({ type: "text", text: "a" });
  });

  it("copies its input: later changes to the params do not reach our blocks", () => {
    const input = { path: "a.ts" };
    const [ours] = fromAnthropicContent([{ type: "tool_use", id: "t", name: "n", input }]);
    input.path = "changed";
    expect(ours).toMatchObject({ input: { path: "a.ts" } });
  });

  it("keeps a __proto__ key as data, never as a prototype", () => {
    const block = JSON.parse('{"type":"x_block","__proto__":{"polluted":true}}');
    const [ours] = fromAnthropicContent([block]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys((ours as { block: object }).block)).toEqual(["type", "__proto__"]);
    expect(JSON.stringify(toAnthropicContent([ours!]))).toBe(JSON.stringify([block]));
  });
});

describe("fromAnthropicMessages: turns, ids, summary", () => {
  it("opens a turn at each user request and keeps the tool loop in it", () => {
    const messages = from([
      user("List the files"),
      assistant([
        { type: "text", text: "Listing." },
        { type: "tool_use", id: "toolu_1", name: "ls", input: {} },
      ]),
      user([{ type: "tool_result", tool_use_id: "toolu_1", content: "a.ts b.ts" }]),
      assistant("Two files."),
      user([{ type: "text", text: "Open a.ts" }]),
      assistant("Done."),
    ]);
    expect(
      messages.map((message) => `${message.role}:${message.turnId.owner}${message.turnId.number}`),
    ).toEqual(["user:u1", "assistant:u1", "user:u1", "assistant:u1", "user:u2", "assistant:u2"]);
    expect(messages.map((message) => message.id)).toEqual([
      "m-1",
      "m-2",
      "m-3",
      "m-4",
      "m-5",
      "m-6",
    ]);
    expect(messages.every((message) => message.sessionId === "s1")).toBe(true);
    expect(messages.every((message) => message.createdAt === FIXED)).toBe(true);
  });

  it("numbers turns from firstTurnNumber", () => {
    const messages = from([user("a"), assistant("b"), user("c")], { firstTurnNumber: 7 });
    expect(messages.map((message) => message.turnId.number)).toEqual([7, 7, 8]);
  });

  it("keeps a tool-result message that also carries text in the tool loop", () => {
    const messages = from([
      user("go"),
      assistant([{ type: "tool_use", id: "toolu_1", name: "ls", input: {} }]),
      user([
        { type: "tool_result", tool_use_id: "toolu_1", content: "x" },
        { type: "text", text: "<reminder>stay focused</reminder>" },
      ]),
    ]);
    expect(messages.map((message) => message.turnId.number)).toEqual([1, 1, 1]);
  });

  it("opens a turn when the conversation starts with tool results or the assistant", () => {
    expect(
      from([user([{ type: "tool_result", tool_use_id: "toolu_0", content: "late" }])])[0]!.turnId,
    ).toEqual({ owner: "u", number: 1 });
    expect(from([assistant("prefill")])[0]!.turnId).toEqual({ owner: "u", number: 1 });
  });

  it("makes a message that starts with the summary the summary turn u0", () => {
    const messages = from([
      user(`${SUMMARY_PREFIX}we fixed the parser`),
      assistant("Understood."),
      user("next task"),
    ]);
    expect(messages.map((message) => message.turnId)).toEqual([
      { owner: "u", number: 0 },
      { owner: "u", number: 0 },
      { owner: "u", number: 1 },
    ]);
  });

  it("splits a summary merged with the first kept user message back into two", () => {
    const params = [
      user([
        { type: "text", text: `${SUMMARY_PREFIX}we fixed the parser` },
        { type: "text", text: `${EARLIER_USER_MESSAGE_PREFIX}never touch main` },
        { type: "text", text: "Now add tests" },
      ]),
      assistant("On it."),
    ];
    const messages = from(params, { firstTurnNumber: 4 });
    expect(messages.map((message) => [message.turnId.number, message.content.length])).toEqual([
      [0, 2],
      [4, 1],
      [4, 1],
    ]);
    expect(toAnthropicMessages(messages)).toEqual(params);
  });

  it("generates uuid v7 ids and a session id by default", () => {
    const messages = fromAnthropicMessages([user("a"), assistant("b")]);
    const uuidV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect(messages[0]!.id).toMatch(uuidV7);
    expect(messages[0]!.sessionId).toMatch(uuidV7);
    expect(messages[0]!.id).not.toBe(messages[1]!.id);
    expect(messages[1]!.sessionId).toBe(messages[0]!.sessionId);
  });

  it("remembers string content so it goes back as a string", () => {
    const messages = from([user("hi"), assistant("The answer is (")]);
    expect(messages[0]!.content).toEqual([
      { type: "text", text: "hi", extra: { [STRING_CONTENT_KEY]: true } },
    ]);
    expect(toAnthropicMessages(messages)).toEqual([user("hi"), assistant("The answer is (")]);
    expect(roundTrip([user("")])).toEqual([user("")]);
  });

  it("returns an empty conversation for no params", () => {
    expect(from([])).toEqual([]);
  });
});

describe("toAnthropicMessages", () => {
  it("merges consecutive messages of one role, tool results first", () => {
    const messages = new ConversationBuilder()
      .user("read it")
      .assistant([toolUseBlock("toolu_1", "read", { path: "a" })])
      .build();
    const later: Message[] = [
      {
        role: "user",
        id: "x-1",
        sessionId: "session-test",
        turnId: { owner: "u", number: 1 },
        createdAt: FIXED,
        content: [{ type: "text", text: "and hurry" }],
      },
      {
        role: "user",
        id: "x-2",
        sessionId: "session-test",
        turnId: { owner: "u", number: 1 },
        createdAt: FIXED,
        content: [toolResultBlock("toolu_1", "contents", { compactSummary: "a: 1 line" })],
      },
    ];
    expect(toAnthropicMessages([...messages, ...later])).toEqual([
      { role: "user", content: [{ type: "text", text: "read it" }] },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_1", name: "read", input: { path: "a" } }],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "contents" },
          { type: "text", text: "and hurry" },
        ],
      },
    ]);
  });

  it("sends merged string-content messages as arrays without the marker", () => {
    const params = toAnthropicMessages([...from([user("one")]), ...from([user("two")])]);
    expect(params).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "one" },
          { type: "text", text: "two" },
        ],
      },
    ]);
    expect(JSON.stringify(params)).not.toContain(STRING_CONTENT_KEY);
  });

  it("sends a compacted conversation as valid alternating messages, summary merged with the kept request", async () => {
    const conversation = new ConversationBuilder()
      .user("Never edit generated files.")
      .toolCall({ name: "ls", result: "a.ts", compactSummary: "1 file" })
      .assistant("One file.")
      .user("Now fix a.ts")
      .toolCall({ name: "read", input: { path: "a.ts" }, result: "x".repeat(400) })
      .assistant("Fixed.")
      .build();
    const compactor = new LLMCompactor(new MockLlmClient().reply("They listed files."), {
      keepRecentTurns: 1,
      keepUserMessagesTokens: 0,
    });
    const { conversation: compacted } = await compactor.compactAsync(conversation, new Map());
    const params = toAnthropicMessages(compacted);
    expect(params.map((param) => param.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(params[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: `${SUMMARY_PREFIX}They listed files.` },
        { type: "text", text: "Now fix a.ts" },
      ],
    });
    // And back: the summary and the kept request are apart again, in their own turns.
    const again = from(params, { firstTurnNumber: 2 });
    expect(again.map((message) => message.turnId.number)).toEqual([0, 2, 2, 2, 2]);
    expect(toAnthropicMessages(again)).toEqual(params);
  });

  it("rejects malformed messages with a ValidationError naming the path", () => {
    const error = validationError(() =>
      toAnthropicMessages([{ role: "user", content: [] } as unknown as Message]),
    );
    expect(error.message).toMatch(/\[0\]\.content/);
    const [good] = from([user("a")]);
    const bad = {
      ...good!,
      content: [{ type: "tool_result", toolUseId: "t", isError: false, content: 5 }],
    } as unknown as Message;
    expect(validationError(() => toAnthropicMessages([good!, bad])).message).toMatch(
      /\[1\]\.content\[0\]/,
    );
  });
});

describe("validation", () => {
  it.each([
    ["a system message", [{ role: "system", content: "be nice" }], "messages[0].role", /system/],
    ["a missing content", [{ role: "user" }], "messages[0].content", /string or a non-empty array/],
    [
      "an empty content array",
      [{ role: "user", content: [] }],
      "messages[0].content",
      /at least one/,
    ],
    [
      "an unknown message field",
      [{ role: "user", content: "a", name: "x" }],
      "messages[0]",
      /name/,
    ],
    [
      "a text block without text",
      [loose("user", "a"), loose("assistant", [{ type: "text", text: 5 }])],
      "messages[1].content[0].text",
      /string/,
    ],
    [
      "a block without type",
      [loose("user", [{ text: "a" }] as never)],
      "messages[0].content[0].type",
      /string/,
    ],
    [
      "a tool_use whose input is an array",
      [
        loose("user", "a"),
        loose("assistant", [{ type: "tool_use", id: "t", name: "n", input: [1] }]),
      ],
      "messages[1].content[0].input",
      /JSON object/,
    ],
    [
      "a tool_result with an empty tool_use_id",
      [loose("user", [{ type: "tool_result", tool_use_id: "" }])],
      "messages[0].content[0].tool_use_id",
      /non-empty/,
    ],
    [
      "a tool_result part without type",
      [loose("user", [{ type: "tool_result", tool_use_id: "t", content: [{ text: "x" }] }])],
      "messages[0].content[0].content[0].type",
      /string/,
    ],
    [
      "a thinking block without signature",
      [loose("user", "a"), loose("assistant", [{ type: "thinking", thinking: "hm" }])],
      "messages[1].content[0].signature",
      /string/,
    ],
    [
      "a NaN in an unknown block",
      [loose("user", [{ type: "x_new", value: Number.NaN }])],
      "messages[0].content[0].value",
      /finite/,
    ],
    [
      "a function in a block",
      [loose("user", [{ type: "x_new", run: () => 1 }])],
      "messages[0].content[0].run",
      /JSON value/,
    ],
    [
      "a Date in a block",
      [loose("user", [{ type: "x_new", at: new Date(0) }])],
      "messages[0].content[0].at",
      /plain JSON object/,
    ],
  ])("names the path of %s", (_name, params, path, message) => {
    const error = validationError(() => from(params as unknown[]));
    const issue = error.issues.find((candidate) => formatted(candidate.path) === path);
    expect(issue, `${error.message}`).toBeDefined();
    expect(issue!.message).toMatch(message);
    expect(error.message).toContain(path);
  });

  it("reports a circular block", () => {
    const block: Record<string, unknown> = { type: "x_loop" };
    block.self = block;
    expect(validationError(() => from([user([block] as never)])).message).toMatch(
      /messages\[0\]\.content\[0\]\.self: must not contain itself/,
    );
  });

  it("reports every bad message, not only the first", () => {
    const error = validationError(() =>
      from([{ role: "robot", content: "a" }, user("ok"), { role: "user", content: 3 }]),
    );
    expect(error.issues.map((issue) => formatted(issue.path))).toEqual([
      "messages[0].role",
      "messages[2].content",
    ]);
  });

  it("rejects params that are not an array, and bad options", () => {
    expect(() => fromAnthropicMessages("hi" as never)).toThrow(ValidationError);
    expect(validationError(() => from([], { firstTurnNumber: 0 })).message).toMatch(
      /firstTurnNumber/,
    );
    expect(validationError(() => from([], { sessionId: "" })).message).toMatch(/sessionId/);
    expect(
      validationError(() => from([user("a"), user("b")], { generateId: () => "same" })).message,
    ).toMatch(/duplicate message id/);
  });

  it("rejects content that is not an array in fromAnthropicContent", () => {
    expect(() => fromAnthropicContent(42 as never)).toThrow(ValidationError);
  });
});

function formatted(path: readonly (string | number)[]): string {
  let out = "";
  for (const part of path)
    out += typeof part === "number" ? `[${part}]` : out === "" ? part : `.${part}`;
  return out;
}

describe("round trip (property)", () => {
  it("random valid MessageParam[] -> ours -> back is deep-equal", () => {
    fc.assert(
      fc.property(messageParams, (params) => {
        const snapshot = structuredClone(params);
        const back = roundTrip(params);
        expect(back).toEqual(params);
        // Byte for byte on the wire, too (key order aside, JSON is the same text).
        expect(canonical(back)).toBe(canonical(params));
        expect(params).toEqual(snapshot);
      }),
      { seed: 20260101, numRuns: 400 },
    );
  });

  it("ours -> back -> ours gives the same blocks and turns", () => {
    fc.assert(
      fc.property(messageParams, (params) => {
        const messages = from(params);
        const again = from(toAnthropicMessages(messages));
        expect(again).toEqual(messages);
      }),
      { seed: 7, numRuns: 200 },
    );
  });
});

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

describe("with a session", () => {
  it("a session continues turn numbering after imported messages", () => {
    const session = new AgentSession({ contextLimit: 10_000, compactor: false, sessionId: "s1" });
    session.append(
      ...from([
        user(`${SUMMARY_PREFIX}earlier work`),
        assistant("ok"),
        user("task one"),
        assistant("done"),
      ]),
    );
    const next = session.addUserText("task two");
    expect(next.turnId).toEqual({ owner: "u", number: 2 });
    expect(toAnthropicMessages(session.messages).at(-1)).toEqual({
      role: "user",
      content: [{ type: "text", text: "task two" }],
    });
  });
});
