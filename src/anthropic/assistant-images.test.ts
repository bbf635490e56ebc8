import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkRequest } from "../../examples/support/loopback-checks.js";
import type { RecordedRequest } from "../../examples/support/messages-api-types.js";
import { type ContentBlock, type Message, SYSTEM_MESSAGE_BLOCK_TYPE } from "../core/message.js";
import { validateConversation } from "../core/validate-conversation.js";
import { fromGeminiContents } from "../gemini/index.js";
import { requestProblems } from "../testing/anthropic-rules/request.js";
import { compactAnthropicMessages } from "./compact-messages.js";
import { toAnthropicMessages } from "./request.js";

// The Messages API refuses an image in an assistant turn: "messages.1.content: 'image' blocks are
// not permitted within assistant turns" (its 400 as users measured and reported it; the docs show
// images in user messages only: "Starting with Claude 3 models, you can also send image content
// blocks", a `"role": "user"` example). So another model's image in an assistant message goes in
// the user message after it, after the tool results it starts with, or in one of its own at the
// end; an assistant message of images alone is left out. The loopback API
// (anthropic-rules/request.ts) and validateConversation know the rule.

const base = { sessionId: "s", turnId: { owner: "u", number: 1 }, createdAt: new Date(0) };
const image: ContentBlock = { type: "image", source: { type: "url", url: "https://x/y.png" } };
const text = (value: string): ContentBlock => ({ type: "text", text: value });
const call = (id: string): ContentBlock => ({ type: "tool_use", id, name: "read", input: {} });
const result = (id: string): ContentBlock => ({
  type: "tool_result",
  toolUseId: id,
  content: "ok",
  isError: false,
});
type Spec = Pick<Message, "role" | "content">;
const messagesOf = (specs: readonly Spec[]) =>
  specs.map((spec, index) => ({ ...base, id: `m${index}`, ...spec }) as Message);

/** The loopback API's verdict on a request of `messages`: its 400's message, or `undefined`. */
function loopbackRefusal(messages: unknown[]): string | undefined {
  const recorded = {
    endpoint: "messages",
    method: "POST",
    path: "/v1/messages",
    headers: {},
    body: { model: "claude-sonnet-5-5", max_tokens: 64, messages },
    outcome: Promise.resolve("answered"),
  } as RecordedRequest;
  const checked = checkRequest(recorded, "messages", {});
  return "refusal" in checked
    ? String((checked.refusal as { message?: unknown }).message)
    : undefined;
}

/** Each wire message as its role and block types. */
const shapes = (messages: readonly { role: string; content: unknown }[]) =>
  messages.map((message) => [
    message.role,
    typeof message.content === "string"
      ? "string"
      : (message.content as { type: string }[]).map((block) => block.type),
  ]);

describe("an image in an assistant message, sent to the Messages API", () => {
  it("is refused by the loopback API in the API's words", () => {
    const sent = [
      { role: "user", content: "Draw a cat." },
      { role: "assistant", content: [{ type: "text", text: "Here:" }, { type: "image" }] },
    ];
    const refusal = "messages.1.content: 'image' blocks are not permitted within assistant turns";
    expect(loopbackRefusal(sent)).toBe(refusal);
    expect(requestProblems(sent)).toEqual([refusal]);
  });

  it("goes in the next user message (a Gemini image model's reply)", () => {
    const messages = fromGeminiContents([
      { role: "user", parts: [{ text: "Draw a cat." }] },
      {
        role: "model",
        parts: [{ text: "Here:" }, { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }],
      },
      { role: "user", parts: [{ text: "Make it blue." }] },
    ]);
    const sent = toAnthropicMessages(messages);
    expect(shapes(sent)).toEqual([
      ["user", ["text"]],
      ["assistant", ["text"]],
      ["user", ["image", "text"]],
    ]);
    expect(loopbackRefusal(sent)).toBeUndefined();
  });

  it.each<[string, Spec[], unknown[]]>([
    [
      "after the results of the calls beside it",
      [
        { role: "user", content: [text("Screenshot it.")] },
        { role: "assistant", content: [image, call("a")] },
        { role: "user", content: [result("a"), text("Next?")] },
      ],
      [
        ["user", ["text"]],
        ["assistant", ["tool_use"]],
        ["user", ["tool_result", "image", "text"]],
      ],
    ],
    [
      "an assistant message of the image alone left out, the user messages around it joined",
      [
        { role: "user", content: [text("Draw a cat.")] },
        { role: "assistant", content: [image] },
        { role: "user", content: [text("Make it blue.")] },
      ],
      [["user", ["text", "image", "text"]]],
    ],
    [
      "in a user message of its own at the end",
      [
        { role: "user", content: [text("Draw a cat.")] },
        { role: "assistant", content: [text("Here:"), image] },
      ],
      [
        ["user", ["text"]],
        ["assistant", ["text"]],
        ["user", ["image"]],
      ],
    ],
  ])("goes %s", (_name, specs, expected) => {
    const messages = messagesOf(specs);
    const sent = toAnthropicMessages(messages);
    expect(shapes(sent)).toEqual(expected);
    expect(loopbackRefusal(sent)).toBeUndefined();
    expect(validateConversation(messages)).toEqual([]);
  });

  it("moves in compactAnthropicMessages' output too", async () => {
    const long = "x".repeat(20_000);
    const input = [
      { role: "user" as const, content: long },
      { role: "assistant" as const, content: long },
      { role: "user" as const, content: "Draw a cat." },
      {
        role: "assistant" as const,
        content: [
          { type: "text" as const, text: "Here:" },
          { type: "image" as const, source: { type: "url" as const, url: "https://x/y.png" } },
        ],
      },
      { role: "user" as const, content: "Make it blue." },
    ];
    const { messages } = await compactAnthropicMessages(input, { contextLimit: 8_000 });
    expect(messages).not.toBe(input);
    expect(loopbackRefusal(messages)).toBeUndefined();
    // The earlier turns cut to fit; the image's message kept, the image in the user's message.
    expect(shapes(messages).slice(-2)).toEqual([
      ["assistant", ["text"]],
      ["user", ["image", "text"]],
    ]);
  });
});

describe("validateConversation reads an assistant message's images where they are sent", () => {
  it("reports the calls an image waiting at the end leaves unanswered, and the caller's indices", () => {
    const open = messagesOf([
      { role: "user", content: [text("Screenshot it.")] },
      { role: "assistant", content: [image, call("a")] },
    ]);
    expect(validateConversation(open).map((problem) => problem.code)).toEqual([
      "missing_tool_result",
    ]);
    expect(loopbackRefusal(toAnthropicMessages(open))).toMatch(/^messages\.1: `tool_use` ids/);
    // The image alone is left out: the messages after it are named by the caller's index.
    const orphan = messagesOf([
      { role: "user", content: [text("Draw.")] },
      { role: "assistant", content: [image] },
      { role: "user", content: [result("z")] },
    ]);
    expect(validateConversation(orphan)).toMatchObject([
      {
        code: "orphan_tool_result",
        messageIndex: 2,
        blockIndex: 0,
        message: expect.stringMatching(/^messages\.2\.content\.0: unexpected `tool_use_id`/),
      },
    ]);
    // A first assistant message of images alone is left out: the user's message comes first.
    const first = messagesOf([
      { role: "assistant", content: [image] },
      { role: "user", content: [text("Nice.")] },
    ]);
    expect(validateConversation(first)).toEqual([]);
    expect(loopbackRefusal(toAnthropicMessages(first))).toBeUndefined();
  });

  // Random histories (calls, results, images, system messages): what validateConversation accepts,
  // the loopback accepts of what toAnthropicMessages sends; and the converse while the sent turns
  // alternate. (validateConversation reads message by message: two user messages in a row, which
  // the API joins into one turn, are read apart; leaving out an assistant message of images alone
  // can put two in a row.)
  const ids = fc.constantFrom("a", "b", "c");
  const userSpec = fc
    .tuple(fc.boolean(), fc.uniqueArray(ids, { maxLength: 2 }))
    .filter(([says, results]) => says || results.length > 0)
    .map(
      ([says, results]): Spec => ({
        role: "user",
        content: [...results.map(result), ...(says ? [text("go")] : [])],
      }),
    );
  const assistantSpec = fc
    .tuple(fc.constantFrom(0, 1, 2), fc.boolean(), fc.uniqueArray(ids, { maxLength: 2 }))
    .filter(([images, says, calls]) => images > 0 || says || calls.length > 0)
    .map(
      ([images, says, calls]): Spec => ({
        role: "assistant",
        content: [
          ...(images > 0 ? [image] : []),
          ...(says ? [text("ok")] : []),
          ...(images > 1 ? [image] : []),
          ...calls.map(call),
        ],
      }),
    );
  const systemSpec: Spec = {
    role: "user",
    content: [
      {
        type: "opaque",
        block: { type: SYSTEM_MESSAGE_BLOCK_TYPE, message: { role: "system", content: "x" } },
      },
    ],
  };
  const history = fc
    .tuple(
      fc.array(fc.tuple(userSpec, assistantSpec), { minLength: 1, maxLength: 4 }),
      fc.boolean(),
      fc.boolean(),
      fc.option(fc.nat(8), { nil: undefined }),
    )
    .map(([pairs, leadsWithAssistant, endsWithUser, system]) => {
      const specs = pairs.flat();
      if (!endsWithUser) specs.pop();
      if (leadsWithAssistant) specs.shift();
      if (system !== undefined && system < specs.length) specs.splice(system, 0, systemSpec);
      return specs;
    })
    .filter((specs) => specs.length > 0);
  const imagesAlone = (message: Message) =>
    message.role === "assistant" && message.content.every((block) => block.type === "image");

  it("agrees with the loopback API on the messages toAnthropicMessages sends", () => {
    fc.assert(
      fc.property(history, (specs) => {
        const messages = messagesOf(specs);
        const problems = validateConversation(messages);
        const refusal = loopbackRefusal(toAnthropicMessages(messages));
        if (problems.length === 0) {
          expect(refusal).toBeUndefined();
          return;
        }
        const turns = messages.filter(
          (message) => !imagesAlone(message) && message.content[0]?.type !== "opaque",
        );
        if (turns.every((message, index) => index === 0 || turns[index - 1]!.role !== message.role))
          expect(refusal).toBeDefined();
      }),
      { numRuns: 1_000 },
    );
  });
});
