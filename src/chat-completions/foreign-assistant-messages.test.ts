import { AIMessage, HumanMessage } from "@langchain/core/messages";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { chatMessagesProblem } from "../../test/support/chat-completions-server.js";
import { fromAnthropicMessages } from "../anthropic/index.js";
import { validateConversation } from "../core/validate-conversation.js";
import { fromGeminiContents } from "../gemini/index.js";
import { fromLangChainMessages } from "../langchain/index.js";
import { toChatMessages } from "./chat-messages-out.js";
import { compactChatMessages } from "./compact-messages.js";
import { joinedUserMessages } from "./joined-user-messages.js";

// Another API's assistant messages sent to Chat Completions, whose assistant message holds
// text and refusal parts only (the SDK's `ChatCompletionAssistantMessageParam`), and which
// hosts with a strict chat template want alternating user and assistant turns (review 59f F1,
// F8).

const rules = () => ({ reasoning: "ignored" as const, issuedReasoning: new Map<string, string>() });
const png = { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } };
const imagePart = {
  type: "image_url",
  image_url: { url: "data:image/png;base64,iVBORw0KGgo=" },
};

/** The request, checked by the stand-in and by validateConversation alike. */
function sent(messages: Parameters<typeof toChatMessages>[0]) {
  const chat = toChatMessages(messages);
  expect(chatMessagesProblem(chat, rules())).toBeUndefined();
  expect(validateConversation(messages, { provider: "chat-completions" })).toEqual([]);
  return chat;
}

describe("another model's image in an assistant message (review 59f F1)", () => {
  it("goes in the user message after it, the image first", () => {
    const messages = fromGeminiContents([
      { role: "user", parts: [{ text: "Draw a cat." }] },
      { role: "model", parts: [png, { text: "Here is the cat." }] },
      { role: "user", parts: [{ text: "Make it blue." }] },
    ]);
    expect(sent(messages)).toEqual([
      { role: "user", content: "Draw a cat." },
      { role: "assistant", content: "Here is the cat." },
      { role: "user", content: [imagePart, { type: "text", text: "Make it blue." }] },
    ]);
  });

  it("from a LangChain AIMessage too, in a user message of its own when none follows", () => {
    const messages = fromLangChainMessages([
      new HumanMessage("Draw a cat."),
      new AIMessage({
        content: [
          { type: "text", text: "Here:" },
          { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
        ],
      }),
    ]);
    expect(sent(messages).slice(1)).toEqual([
      { role: "assistant", content: "Here:" },
      { role: "user", content: [imagePart] },
    ]);
  });

  it("comes after the tool messages answering the message's calls, which follow it directly", () => {
    const call = { functionCall: { id: "c1", name: "save", args: {} } };
    const result = { functionResponse: { id: "c1", name: "save", response: { ok: true } } };
    const messages = fromGeminiContents([
      { role: "user", parts: [{ text: "Draw and save a cat." }] },
      { role: "model", parts: [{ text: "Saving:" }, png, call] },
      { role: "user", parts: [result] },
      { role: "model", parts: [{ text: "Saved." }] },
    ]);
    expect(sent(messages).map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "user",
      "assistant",
    ]);
    expect(sent(messages)[3]).toEqual({ role: "user", content: [imagePart] });
  });

  it("alone in its message: the image opens the conversation as the user's", () => {
    const messages = fromGeminiContents([
      { role: "model", parts: [png] },
      { role: "model", parts: [{ text: "A cat." }] },
    ]);
    expect(sent(messages)).toEqual([
      { role: "user", content: [imagePart] },
      { role: "assistant", content: "A cat." },
    ]);
  });
});

describe("an assistant message of only another API's blocks (review 59f F8)", () => {
  const mcp = [
    { type: "mcp_tool_use", id: "m1", name: "n", server_name: "s", input: {} },
    { type: "mcp_tool_result", tool_use_id: "m1", is_error: false, content: "x" },
  ];
  const anthropic = (messages: unknown[]) => fromAnthropicMessages(messages as never);

  it("is left out at the end, before another assistant message, and first", () => {
    expect(
      sent(
        anthropic([
          { role: "user", content: "q" },
          { role: "assistant", content: mcp },
        ]),
      ),
    ).toEqual([{ role: "user", content: "q" }]);
    expect(
      sent(
        anthropic([
          { role: "user", content: "q" },
          { role: "assistant", content: mcp },
          { role: "assistant", content: "done" },
        ]),
      ),
    ).toEqual([
      { role: "user", content: "q" },
      { role: "assistant", content: "done" },
    ]);
    expect(
      sent(
        anthropic([
          { role: "assistant", content: mcp },
          { role: "user", content: "q" },
        ]),
      ),
    ).toEqual([{ role: "user", content: "q" }]);
  });

  it("is left out between a message's calls and their results", () => {
    const chat = sent(
      anthropic([
        { role: "user", content: "q" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "f", input: {} }] },
        { role: "assistant", content: mcp },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "r" }] },
      ]),
    );
    expect(chat.map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("stays, empty, between two of the caller's user messages: the roles alternate, neither joined", () => {
    const chat = sent(
      anthropic([
        { role: "user", content: "q" },
        { role: "assistant", content: mcp },
        { role: "user", content: "next" },
      ]),
    );
    expect(chat).toEqual([
      { role: "user", content: "q" },
      { role: "assistant", content: "" },
      { role: "user", content: "next" },
    ]);
  });

  it("joinedUserMessages: left out beside the library's message, which joins the caller's", () => {
    const empty = { role: "assistant", content: "" };
    const notice = { role: "user", content: "notice" };
    const request = { role: "user", content: "request" };
    const reply = { role: "assistant", content: "reply" };
    const noticeAndRequest = {
      role: "user",
      content: [
        { type: "text", text: "notice" },
        { type: "text", text: "request" },
      ],
    };
    expect(joinedUserMessages([notice, empty, request, reply], [0], [1])).toEqual([
      noticeAndRequest,
      reply,
    ]);
    // Not joined across it with the user message before: the library's stands after it.
    expect(joinedUserMessages([request, empty, notice, reply], [2], [1])).toEqual([
      request,
      empty,
      notice,
      reply,
    ]);
    expect(joinedUserMessages([reply, empty, empty, reply], [], [1, 2])).toEqual([reply, reply]);
    expect(joinedUserMessages([request, empty, empty, request], [], [1, 2])).toEqual([
      request,
      empty,
      request,
    ]);
  });
});

describe("a caller's chat assistant message holding an image_url part", () => {
  it("is mended by compactChatMessages below its threshold too: the image goes after it", async () => {
    const history = [
      { role: "user", content: "Draw a cat." },
      { role: "assistant", content: [imagePart, { type: "text", text: "Here." }] },
      { role: "user", content: "Thanks." },
    ] as ChatCompletionMessageParam[];
    const { messages } = await compactChatMessages(history, { contextLimit: 1_000_000 });
    expect(messages).toEqual([
      history[0],
      { role: "assistant", content: [{ type: "text", text: "Here." }] },
      { role: "user", content: [imagePart, { type: "text", text: "Thanks." }] },
    ]);
    expect(chatMessagesProblem(messages, rules())).toBeUndefined();
  });
});
