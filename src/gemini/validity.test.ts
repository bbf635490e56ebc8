import { describe, expect, it } from "vitest";
import { GEMINI_KEY } from "../core/gemini-contents.js";
import type { Message, ToolUseBlock } from "../core/message.js";
import { validateConversation } from "../core/validate-conversation.js";
import { ConversationBuilder } from "../testing/index.js";
import { fromGeminiContents } from "./contents-in.js";

const gemini = (messages: Message[]) => validateConversation(messages, { provider: "gemini" });
const codes = (messages: Message[]) => gemini(messages).map((problem) => problem.code);

const signedCall = (signature: string | null) => ({
  role: "model",
  parts: [
    {
      functionCall: { name: "read", args: { path: "a.ts" } },
      ...(signature === null ? {} : { thoughtSignature: signature }),
    },
    { functionCall: { name: "read", args: { path: "b.ts" } } },
  ],
});
const answers = {
  role: "user",
  parts: [
    { functionResponse: { name: "read", response: { output: "a" } } },
    { functionResponse: { name: "read", response: { output: "b" } } },
  ],
};
const ask = (text: string) => ({ role: "user", parts: [{ text }] });
const say = (text: string) => ({ role: "model", parts: [{ text }] });

describe('validateConversation({ provider: "gemini" })', () => {
  it("accepts a signed tool loop with parallel calls (only the first signed), and a new turn after it", () => {
    expect(gemini(fromGeminiContents([ask("go"), signedCall("S1"), answers]))).toEqual([]);
    expect(
      gemini(fromGeminiContents([ask("go"), signedCall("S1"), answers, say("done"), ask("next")])),
    ).toEqual([]);
  });

  it("requires the current turn's function calls to carry their thought signature, in the API's words", () => {
    const messages = fromGeminiContents([ask("go"), signedCall(null), answers]);
    expect(gemini(messages)).toEqual([
      {
        code: "missing_thought_signature",
        messageIndex: 1,
        blockIndex: 0,
        toolUseId: (messages[1]!.content[0] as ToolUseBlock).id,
        message: expect.stringMatching(
          /^Function call is missing a thought_signature in functionCall parts\..*`default_api:read` , position 1\./,
        ) as unknown as string,
      },
    ]);
    // Once a new request starts a turn, the calls before it are no longer checked.
    expect(
      codes(fromGeminiContents([ask("go"), signedCall(null), answers, say("ok"), ask("more")])),
    ).toEqual([]);
  });

  it("reads a call's signature where the adapter keeps it, and takes none from other providers", () => {
    const messages = new ConversationBuilder()
      .user("go")
      .toolCall({ name: "read", result: "ok" })
      .build();
    expect(codes(messages)).toEqual(["missing_thought_signature"]);
    const call = messages[1]!.content[0] as ToolUseBlock;
    messages[1] = {
      ...messages[1]!,
      content: [{ ...call, extra: { [GEMINI_KEY]: { part: { thoughtSignature: "S" } } } }],
    };
    expect(codes(messages)).toEqual([]);
  });

  it("pairs each function call turn with its responses in the very next turn", () => {
    const [user, call, result] = fromGeminiContents([ask("go"), signedCall("S1"), answers]);
    expect(codes([user!, call!])).toEqual(["missing_tool_result", "missing_tool_result"]);
    expect(codes([user!, call!, { ...result!, content: result!.content.slice(0, 1) }])).toEqual([
      "missing_tool_result",
    ]);
    expect(codes([user!, result!])).toEqual(["orphan_tool_result", "orphan_tool_result"]);
    expect(codes([call!, result!])).toEqual(["misplaced_function_call"]);
    expect(codes([])).toEqual(["empty_conversation"]);
  });

  it("judges the contents the adapter sends: consecutive messages of one role are one content", () => {
    const messages = new ConversationBuilder().user("first").user("second").build();
    expect(codes(messages)).toEqual([]);
    const [user, call, result] = fromGeminiContents([ask("go"), signedCall("S1"), answers]);
    const note = { ...user!, id: "note", content: [{ type: "text" as const, text: "meanwhile" }] };
    // Text after the responses joins their user content: still one response turn.
    expect(codes([user!, call!, result!, note])).toEqual([]);
  });
});
