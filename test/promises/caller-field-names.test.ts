import type { Content } from "@google/genai";
import type { ModelMessage } from "ai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { fromModelMessages, toModelMessages } from "../../src/ai-sdk/index.js";
import { appendAnthropicResponse, fromAnthropicMessages } from "../../src/anthropic/index.js";
import { fromChatMessages, toChatMessages } from "../../src/chat-completions/index.js";
import { fromGeminiContents, toGeminiContents } from "../../src/gemini/index.js";
import { AgentSession } from "../../src/index.js";

// `JSON.parse` makes a field named `__proto__` an own field of the object it reads. The fields
// an adapter keeps beside its blocks were copied by assignment, which set the prototype of the
// copy instead: the field was dropped, or inherited (a `thoughtSignature` read through it).

const parsed = <T>(text: string): T => JSON.parse(text) as T;

describe("a field named __proto__ in a request body", () => {
  it("stays an own field of a Gemini part and comes back", () => {
    const contents = parsed<Content[]>(
      '[{"role":"model","parts":[{"text":"a","thoughtSignature":"s","__proto__":{"thoughtSignature":"evil"}}]}]',
    );
    const messages = fromGeminiContents(contents);
    const block = messages[0]!.content[0]!;
    if (block.type !== "text") throw new Error("a text block expected");
    const kept = (block.extra!["gemini"] as { part: object }).part;
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
    expect(Object.hasOwn(kept, "__proto__")).toBe(true);
    expect(toGeminiContents(messages)).toEqual(contents);
  });

  it("stays an own field of a Chat Completions message and comes back", () => {
    const messages = parsed<ChatCompletionMessageParam[]>(
      '[{"role":"user","name":"n","__proto__":{"x":1},"content":"hi"}]',
    );
    const back = toChatMessages(fromChatMessages(messages));
    expect(back).toEqual(messages);
    expect(Object.hasOwn(back[0]!, "__proto__")).toBe(true);
  });

  it("stays an own field of an AI SDK part carried whole and comes back", () => {
    const messages = parsed<ModelMessage[]>(
      '[{"role":"user","content":[{"type":"file","data":"JVBERi0=","mediaType":"application/pdf","__proto__":{"filename":"secret.pdf"}}]}]',
    );
    const ours = fromModelMessages(messages);
    const block = ours[0]!.content[0]!;
    if (block.type !== "opaque") throw new Error("an opaque block expected");
    expect(Object.getPrototypeOf(block.block)).toBe(Object.prototype);
    expect(toModelMessages(ours)).toEqual(messages);
  });
});

describe("a field named as the library's bookkeeping in Anthropic input", () => {
  it("is refused by name, as the other adapters refuse it, not taken for another API's block", () => {
    const messages = [
      {
        role: "user",
        content: [
          {
            type: "document",
            source: { type: "text", media_type: "text/plain", data: "the contract" },
            "openai:item": {},
          },
        ],
      },
      { role: "assistant", content: "ok" },
    ];
    expect(() => fromAnthropicMessages(messages as never)).toThrow(
      "messages[0].content[0].openai:item: is a name the library keeps its own marks under",
    );
    const reply = { content: [{ type: "text", text: "done", "gemini:x": 1 }] };
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("q");
    expect(() => appendAnthropicResponse(session, reply as never)).toThrow("gemini:x");
    expect(session.messages).toHaveLength(1);
  });
});
