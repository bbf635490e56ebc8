import fc from "fast-check";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import { objectsIn } from "../../test/support/quick-path.js";
import { ValidationError } from "../core/errors.js";
import { estimateTokens } from "../core/message-memo.js";
import { MessagesSchema } from "../core/schemas.js";
import { fromResponsesInput, readEstimated } from "./responses-input.js";
import { toResponsesInput } from "./responses-output.js";

const text = fc.string({ maxLength: 10 });
const id = (prefix: string) =>
  fc.stringMatching(/^[a-z0-9]{1,6}$/).map((value) => `${prefix}_${value}`);
const inputText = text.map((value) => ({ type: "input_text", text: value }));
const inputImage = fc.oneof(
  fc.webUrl().map((url) => ({ type: "input_image", detail: "auto", image_url: url })),
  id("file").map((fileId) => ({ type: "input_image", detail: "high", file_id: fileId })),
);
const inputFile = id("file").map((fileId) => ({ type: "input_file", file_id: fileId }));
const userMessage = fc.oneof(
  text.map((content) => ({ role: "user", content })),
  fc
    .array(fc.oneof(inputText, inputImage, inputFile), { maxLength: 3 })
    .map((content) => ({ type: "message", role: "user", content })),
);
const developer = text.map((content) => ({ role: "developer", content }));
const outputText = text.map((value) => ({ type: "output_text", text: value, annotations: [] }));
const assistantMessage = fc
  .tuple(
    id("msg"),
    fc.array(
      fc.oneof(
        outputText,
        text.map((refusal) => ({ type: "refusal", refusal })),
      ),
      { minLength: 1, maxLength: 2 },
    ),
  )
  .map(([itemId, content]) => ({
    type: "message",
    id: itemId,
    role: "assistant",
    status: "completed",
    content,
  }));
const reasoning = fc
  .tuple(id("rs"), fc.base64String({ minLength: 4, maxLength: 16 }))
  .map(([itemId, encrypted]) => ({
    type: "reasoning",
    id: itemId,
    summary: [{ type: "summary_text", text: "thinking" }],
    encrypted_content: encrypted,
  }));
const args = fc.oneof(
  fc
    .dictionary(fc.constantFrom("path", "n"), fc.oneof(fc.string(), fc.integer()))
    .map((value) => JSON.stringify(value)),
  fc.constantFrom('{ "path": "a.ts" }', "not json", "[1,2]"),
);
const call = fc.tuple(id("fc"), id("call"), args).map(([itemId, callId, argumentsText]) => ({
  type: "function_call",
  id: itemId,
  call_id: callId,
  name: "read",
  arguments: argumentsText,
  status: "completed",
}));
const customCall = fc.tuple(id("call"), text).map(([callId, input]) => ({
  type: "custom_tool_call",
  call_id: callId,
  name: "patch",
  input,
}));
const output = fc
  .tuple(id("call"), fc.oneof(text, fc.array(fc.oneof(inputText, inputImage), { maxLength: 2 })))
  .map(([callId, value]) => ({ type: "function_call_output", call_id: callId, output: value }));
const compaction = fc
  .tuple(id("cmp"), fc.base64String({ minLength: 4, maxLength: 16 }))
  .map(([itemId, encrypted]) => ({
    type: "compaction",
    id: itemId,
    encrypted_content: encrypted,
  }));
const hosted = id("ws").map((itemId) => ({
  type: "web_search_call",
  id: itemId,
  status: "completed",
  action: { type: "search", query: "q" },
}));
/** Items the model produces that a reasoning item may precede: output items, not inputs. */
const MODEL_ITEM_TYPES = new Set([
  "message",
  "function_call",
  "custom_tool_call",
  "web_search_call",
]);

/**
 * `items` as `toResponsesInput` writes them back: without each reasoning item not followed by an
 * item the model produced with it (the API refuses one "without its required following item"),
 * and a call whose `call_id` an answered call had sent with its outputs as `<id>_<n>` (the API
 * refuses a `call_id` answered twice).
 */
function sendable(items: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const kept = items.filter((entry, index) => {
    if (entry["type"] !== "reasoning") return true;
    const next = items[index + 1];
    return next?.["role"] === undefined
      ? MODEL_ITEM_TYPES.has(String(next?.["type"]))
      : next["role"] === "assistant";
  });
  const isCall = (entry: Record<string, unknown>) =>
    entry["type"] === "function_call" || entry["type"] === "custom_tool_call";
  const taken = new Set(kept.filter(isCall).map((entry) => String(entry["call_id"])));
  const latest = new Map<string, { sent: string; answered: boolean; uses: number }>();
  return kept.map((entry) => {
    const id = String(entry["call_id"]);
    const known = latest.get(id);
    if (entry["type"] === "function_call_output") {
      if (known === undefined) return entry;
      known.answered = true;
      return known.sent === id ? entry : { ...entry, call_id: known.sent };
    }
    if (!isCall(entry)) return entry;
    if (known === undefined) latest.set(id, { sent: id, answered: false, uses: 1 });
    if (known === undefined || !known.answered) return entry;
    let sent = `${id}_${known.uses + 1}`;
    while (taken.has(sent)) sent += "_";
    taken.add(sent);
    latest.set(id, { sent, answered: false, uses: known.uses + 1 });
    return { ...entry, call_id: sent };
  });
}

const item = fc.oneof(
  userMessage,
  developer,
  assistantMessage,
  reasoning,
  call,
  customCall,
  output,
  compaction,
  hosted,
);

describe("fromResponsesInput / toResponsesInput", () => {
  it("round-trips any input item list exactly, into well-formed messages", () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 10 }), (items) => {
        const messages = fromResponsesInput(items as ResponseInputItem[], { sessionId: "s" });
        expect(MessagesSchema.safeParse(messages).success).toBe(true);
        expect(toResponsesInput(messages)).toEqual(sendable(items));
      }),
      { numRuns: 300 },
    );
  });

  it("shares no object with the items it read, nor the items it writes with the messages", () => {
    const system = {
      type: "message",
      role: "system",
      content: [{ type: "input_text", text: "be brief" }],
    };
    const annotated = {
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: "a", annotations: [{ type: "url_citation" }] }],
    };
    fc.assert(
      fc.property(fc.array(item, { maxLength: 10 }), (items) => {
        const all = [system, ...items, annotated];
        const messages = fromResponsesInput(all as ResponseInputItem[], { sessionId: "s" });
        const written = toResponsesInput(messages);
        expect(written).toEqual(sendable(all));
        const theirs = objectsIn(all);
        const ours = objectsIn(messages);
        for (const object of ours) expect(theirs.has(object)).toBe(false);
        for (const object of objectsIn(written)) expect(ours.has(object)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("groups one model turn into one assistant message, reasoning in place, and assigns turns", () => {
    const items = [
      { role: "user", content: "Fix it" },
      { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "ENC" },
      {
        type: "function_call",
        id: "fc_1",
        call_id: "call_1",
        name: "read",
        arguments: '{"path":"a.ts"}',
      },
      {
        type: "function_call",
        id: "fc_2",
        call_id: "call_2",
        name: "read",
        arguments: '{"path":"b.ts"}',
      },
      { type: "function_call_output", call_id: "call_1", output: "A" },
      { type: "function_call_output", call_id: "call_2", output: "B" },
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Done", annotations: [] }],
      },
      { role: "user", content: "Thanks" },
    ] as ResponseInputItem[];
    const messages = fromResponsesInput(items, { sessionId: "s" });
    expect(
      messages.map(
        (message) =>
          `${message.role}:${message.turnId.number}:${message.content.map((block) => block.type).join(",")}`,
      ),
    ).toEqual([
      "user:1:text",
      "assistant:1:opaque,tool_use,tool_use",
      "user:1:tool_result,tool_result",
      "assistant:1:text",
      "user:2:text",
    ]);
    expect(messages[1]?.content[0]).toEqual({ type: "opaque", block: items[1] });
    expect(messages[1]?.content[1]).toMatchObject({
      type: "tool_use",
      id: "call_1",
      input: { path: "a.ts" },
    });
  });

  it("sends a masked result and library-written text in the API's plain shapes", () => {
    const messages = fromResponsesInput([
      { role: "user", content: "x" },
      { type: "function_call", call_id: "c", name: "read", arguments: "{}" },
      { type: "function_call_output", call_id: "c", output: "long output" },
    ] as ResponseInputItem[]);
    const result = messages[2]!.content[0]!;
    const masked = {
      ...messages[2]!,
      content: [{ ...result, content: "[redacted]" }],
    } as (typeof messages)[number];
    const summary = { ...messages[0]!, content: [{ type: "text" as const, text: "Summary" }] };
    expect(toResponsesInput([summary, messages[1]!, masked])).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "Summary" }] },
      { type: "function_call", call_id: "c", name: "read", arguments: "{}" },
      { type: "function_call_output", call_id: "c", output: "[redacted]" },
    ]);
  });

  it("reads an item reference whose type is left out, as the SDK's ItemReference allows", () => {
    const input = [
      { role: "user", content: "Go on from there." },
      { id: "msg_1" },
      { id: "fc_1", type: null },
      { type: "item_reference", id: "fco_1" },
    ] as ResponseInputItem[];
    const messages = fromResponsesInput(input, { sessionId: "s" });
    expect(MessagesSchema.safeParse(messages).success).toBe(true);
    expect(toResponsesInput(messages)).toEqual(input);
  });

  it("names the path of each malformed item", () => {
    let error: unknown;
    try {
      fromResponsesInput([
        7,
        { type: "function_call", call_id: "", name: "x", arguments: "{}" },
        { type: "message", role: "user", content: [{ type: "bogus" }] },
        // An item whose type is no string would go back as it came, and the API refuses it.
        { type: {}, role: "user", content: "x" },
        { type: "", id: "rs_1" },
      ]);
    } catch (caught) {
      error = caught;
    }
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues.map((issue) => issue.path.join("."))).toEqual([
      "0",
      "1.call_id",
      "2.content.0.type",
      "3.type",
      "4.type",
    ]);
    expect(fromResponsesInput("hello")[0]?.content[0]).toMatchObject({
      type: "text",
      text: "hello",
    });
  });
});

describe("the reading's estimate", () => {
  // Texts JSON escapes (quotes, backslashes, control characters, lone surrogates), short and
  // past the 64 characters from which the estimate measures escapes.
  const escapable = fc.oneof(
    fc.string({ unit: "binary", maxLength: 8 }),
    fc.string({
      unit: fc.constantFrom('"', "\\", "\n", "\ud800", "\ud83d\ude00", "a"),
      minLength: 60,
      maxLength: 80,
    }),
  );
  /** A call of the commonest shape, its arguments a JSON object as JSON.stringify writes it. */
  const plainCall = fc
    .tuple(
      fc.constantFrom("c1", "c2"),
      fc.dictionary(
        fc.oneof(escapable, fc.constantFrom("1", "__proto__")),
        fc.oneof(escapable, fc.integer(), fc.double()),
      ),
    )
    .map(([callId, input]) => ({
      type: "function_call",
      call_id: callId,
      name: "read",
      arguments: JSON.stringify(input),
    }));
  const said = text.map((value) => ({
    type: "message",
    role: "assistant",
    content: [{ type: "output_text", text: value, annotations: [] }],
  }));

  it("is estimateTokens' for the messages it reads, quickly or fully, escaped arguments and all", () => {
    const options = { sessionId: "s", clock: () => new Date(0) };
    fc.assert(
      fc.property(
        fc.array(fc.oneof(item, plainCall, said), { maxLength: 8 }),
        fc.boolean(),
        (items, quick) => {
          const { messages, tokens } = readEstimated(items, options, quick);
          // A copy: the messages' remembered estimate is not asked, it is measured anew.
          expect(tokens).toBe(estimateTokens(structuredClone(messages)));
        },
      ),
      { seed: 3_100_529, numRuns: 1500 },
    );
  });
});

describe("toResponsesInput's input", () => {
  const issuesOf = (value: unknown): string[] => {
    try {
      toResponsesInput(value as never);
    } catch (error) {
      if (ValidationError.isInstance(error))
        return error.issues.map((issue) => issue.path.join("."));
      throw error;
    }
    return [];
  };

  it("refuses Responses items in place of messages with a ValidationError naming the field", () => {
    // An item is not a message: what fromResponsesInput makes of it is.
    expect(issuesOf([{ type: "message", role: "user", content: "hi" }])).toEqual(
      expect.arrayContaining(["0.id", "0.turnId", "0.content"]),
    );
    expect(issuesOf([{ role: "user" }])).toEqual(expect.arrayContaining(["0.content"]));
    expect(issuesOf("hi")).toEqual([""]);
    const converted = fromResponsesInput([{ type: "message", role: "user", content: "hi" }]);
    expect(toResponsesInput(converted)).toEqual([{ type: "message", role: "user", content: "hi" }]);
  });
});
