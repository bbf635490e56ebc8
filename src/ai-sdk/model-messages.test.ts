import type { ModelMessage } from "ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { reusesToolIds } from "../core/distinct-tool-ids.js";
import { ValidationError } from "../core/errors.js";
import { estimateTokens } from "../core/message-memo.js";
import { MessagesSchema } from "../core/schemas.js";
import { validateConversation } from "../core/validate-conversation.js";
import {
  convertModelMessages,
  fromModelMessages,
  toModelMessages,
  writeModelMessages,
} from "./model-messages.js";

/** Every part's `toolCallId`, in order. */
function toolCallIds(messages: readonly ModelMessage[]): string[] {
  return messages.flatMap((message) =>
    typeof message.content === "string"
      ? []
      : message.content.flatMap((part) => ("toolCallId" in part ? [part.toolCallId] : [])),
  );
}

const json = fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(JSON.stringify(value)));
const jsonObject = fc.dictionary(fc.constantFrom("a", "b", "cache", "id"), json, { maxKeys: 3 });
const providerOptions = fc.option(
  fc.record({ anthropic: jsonObject, openai: jsonObject }, { requiredKeys: [] }),
  { nil: undefined },
);
const text = fc.string({ maxLength: 12 });
const id = fc.stringMatching(/^[a-z0-9_]{1,8}$/);

function withOptions<T extends object>(part: T, options: object | undefined): T {
  return options === undefined ? part : { ...part, providerOptions: options };
}

const textPart = fc
  .tuple(text, providerOptions)
  .map(([value, options]) => withOptions({ type: "text" as const, text: value }, options));
const bytes = fc.uint8Array({ maxLength: 16 });
const imagePart = fc.oneof(
  fc.tuple(bytes, fc.constantFrom("image/png", "image/jpeg")).map(([data, mediaType]) => ({
    type: "image" as const,
    image: data,
    mediaType,
  })),
  fc.webUrl().map((url) => ({ type: "image" as const, image: new URL(url) })),
  fc.base64String({ maxLength: 12 }).map((data) => ({ type: "image" as const, image: data })),
  fc
    .tuple(bytes, fc.option(fc.string({ minLength: 1, maxLength: 6 }), { nil: undefined }))
    .map(([data, filename]) => ({
      type: "file" as const,
      data,
      mediaType: "image/webp",
      ...(filename === undefined ? {} : { filename }),
    })),
  bytes.map((data) => ({ type: "file" as const, data, mediaType: "application/pdf" })),
);
const reasoningPart = fc.oneof(
  fc.tuple(text, id).map(([value, signature]) => ({
    type: "reasoning" as const,
    text: value,
    providerOptions: { anthropic: { signature } },
  })),
  id.map((data) => ({
    type: "reasoning" as const,
    text: "",
    providerOptions: { anthropic: { redactedData: data } },
  })),
  fc.tuple(text, id).map(([value, itemId]) => ({
    type: "reasoning" as const,
    text: value,
    providerOptions: { openai: { itemId, reasoningEncryptedContent: "enc" } },
  })),
);
const toolCallPart = fc
  .tuple(id, id, fc.oneof(jsonObject, fc.string()), providerOptions)
  .map(([callId, name, input, options]) =>
    withOptions({ type: "tool-call" as const, toolCallId: callId, toolName: name, input }, options),
  );
const output = fc.oneof(
  text.map((value) => ({ type: "text" as const, value })),
  text.map((value) => ({ type: "error-text" as const, value })),
  json.map((value) => ({ type: "json" as const, value })),
  json.map((value) => ({ type: "error-json" as const, value })),
  fc
    .option(text, { nil: undefined })
    .map((reason) =>
      reason === undefined
        ? { type: "execution-denied" as const }
        : { type: "execution-denied" as const, reason },
    ),
  fc
    .array(
      fc.oneof(
        text.map((value) => ({ type: "text" as const, text: value })),
        fc.base64String({ maxLength: 8 }).map((data) => ({
          type: "image-data" as const,
          data,
          mediaType: "image/png",
        })),
        fc.webUrl().map((url) => ({ type: "image-url" as const, url })),
        fc.base64String({ maxLength: 8 }).map((data) => ({
          type: "file-data" as const,
          data,
          mediaType: "application/pdf",
        })),
      ),
      { maxLength: 3 },
    )
    .map((value) => ({ type: "content" as const, value })),
);
const toolResultPart = fc
  .tuple(id, id, output, providerOptions)
  .map(([callId, name, value, options]) =>
    withOptions(
      { type: "tool-result" as const, toolCallId: callId, toolName: name, output: value },
      options,
    ),
  );
const compactionPart = fc.tuple(text, id).map(([value, signature]) => ({
  type: "text" as const,
  text: value,
  providerOptions: { anthropic: { type: "compaction", signature } },
}));

const message: fc.Arbitrary<ModelMessage> = fc.oneof(
  fc
    .tuple(text, providerOptions)
    .map(([value, options]) => withOptions({ role: "system" as const, content: value }, options)),
  fc
    .tuple(
      fc.oneof(text, fc.array(fc.oneof(textPart, imagePart), { maxLength: 4 })),
      providerOptions,
    )
    .map(([content, options]) => withOptions({ role: "user" as const, content }, options)),
  fc
    .tuple(
      fc.oneof(
        text,
        fc.array(fc.oneof(textPart, reasoningPart, toolCallPart, compactionPart), { maxLength: 4 }),
      ),
      providerOptions,
    )
    .map(([content, options]) => withOptions({ role: "assistant" as const, content }, options)),
  fc
    .tuple(fc.array(toolResultPart, { minLength: 1, maxLength: 3 }), providerOptions)
    .map(([content, options]) => withOptions({ role: "tool" as const, content }, options)),
);

describe("fromModelMessages / toModelMessages", () => {
  it("works out the estimate of what it converts as estimateTokens does, tool inputs measured as checked", () => {
    const deep: Record<string, unknown> = { leaf: 'a "quoted"\nline' };
    for (let level = 0; level < 40; level += 1) deep["next"] = { ...deep };
    const odd = fc.constantFrom<unknown>(
      deep,
      { dropped: undefined, kept: 1 },
      Object.assign(Object.create(null), { own: 2 }),
      { list: [1, "two", null, { three: true }] },
    );
    const oddCall = fc.tuple(id, id, odd).map(([callId, name, input]) => ({
      role: "assistant" as const,
      content: [{ type: "tool-call" as const, toolCallId: callId, toolName: name, input }],
    }));
    fc.assert(
      fc.property(
        fc.array(fc.oneof(message, oddCall as fc.Arbitrary<ModelMessage>), { maxLength: 8 }),
        (messages) => {
          const converted = convertModelMessages(messages, { sessionId: "s" }, undefined, 0);
          expect(converted.tokens).toBe(estimateTokens(converted.messages));
        },
      ),
      { numRuns: 400 },
    );
  });

  it("round-trips any AI SDK conversation exactly, into well-formed messages", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 8 }), (messages) => {
        const ours = fromModelMessages(messages, { sessionId: "s" });
        expect(MessagesSchema.safeParse(ours).success).toBe(true);
        // Written as it came; sent so, where no answered call's id comes again.
        expect(writeModelMessages(ours)).toEqual(messages);
        const sent = toModelMessages(ours);
        if (!reusesToolIds(ours)) expect(sent).toEqual(messages);
        else {
          // A reused id goes as `<id>_<n>`, the messages otherwise as they came.
          const sentIds = toolCallIds(sent);
          const ids = toolCallIds(messages);
          expect(sentIds.length).toBe(ids.length);
          sentIds.forEach((id, index) => {
            const was = ids[index]!;
            if (id !== was) expect(id).toMatch(new RegExp(`^${was}_\\d+_*$`));
          });
          const strip = (key: string, value: unknown) => (key === "toolCallId" ? "" : value);
          expect(JSON.parse(JSON.stringify(sent, strip))).toEqual(
            JSON.parse(JSON.stringify(messages, strip)),
          );
        }
      }),
      { numRuns: 300 },
    );
  });

  // Review 52d's finding 10: an empty `tool` message came back as a user message, and a JSON
  // output without a value with `value: null`.
  it("round-trips a tool message of no parts and a JSON output without a value", () => {
    const call = { type: "tool-call", toolCallId: "c1", toolName: "t", input: {} } as const;
    const messages: ModelMessage[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: [call] },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c1",
            toolName: "t",
            output: { type: "json" } as never,
          },
        ],
      },
      { role: "tool", content: [] },
    ];
    expect(toModelMessages(fromModelMessages(messages, { sessionId: "s" }))).toEqual(messages);
  });

  it("assigns turns as the session does and maps a tool loop to Anthropic-valid blocks", () => {
    const messages: ModelMessage[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Fix the build" },
      {
        role: "assistant",
        content: [
          {
            type: "reasoning",
            text: "think",
            providerOptions: { anthropic: { signature: "sig" } },
          },
          { type: "tool-call", toolCallId: "c1", toolName: "read", input: { path: "a.ts" } },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c1",
            toolName: "read",
            output: { type: "error-text", value: "ENOENT" },
          },
        ],
      },
      { role: "assistant", content: "Done." },
      { role: "user", content: [{ type: "text", text: "Thanks" }] },
    ];
    const ours = fromModelMessages(messages, { sessionId: "s" });
    expect(ours.map((m) => `${m.role}:${m.turnId.number}`)).toEqual([
      "user:1",
      "user:1",
      "assistant:1",
      "user:1",
      "assistant:1",
      "user:2",
    ]);
    expect(ours[2]?.content[0]).toMatchObject({ type: "thinking", signature: "sig" });
    expect(ours[3]?.content[0]).toMatchObject({
      type: "tool_result",
      toolUseId: "c1",
      isError: true,
      content: "ENOENT",
    });
    expect(validateConversation(ours.slice(1))).toEqual([]);
  });

  it("keeps Anthropic's compaction part as the API's block, with its signature", () => {
    const messages: ModelMessage[] = [
      {
        role: "assistant",
        content: [
          {
            type: "text",
            text: "Summary",
            providerOptions: { anthropic: { type: "compaction", signature: "S1" } },
          },
        ],
      },
      { role: "user", content: "go on" },
    ];
    const ours = fromModelMessages(messages);
    expect(ours[0]?.content[0]).toEqual({
      type: "opaque",
      block: {
        type: "compaction",
        content: "Summary",
        signature: "S1",
        "aiSdk:providerOptions": { anthropic: { type: "compaction", signature: "S1" } },
      },
    });
    expect(ours[0]?.turnId).toEqual({ owner: "u", number: 0 });
    expect(toModelMessages(ours)).toEqual(messages);
  });

  it("gives a masked JSON result back as text, and finds a tool name from its call", () => {
    const ours = fromModelMessages([
      { role: "user", content: "x" },
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "c1", toolName: "grep", input: {} }],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c1",
            toolName: "grep",
            output: { type: "json", value: [1, 2] },
          },
        ],
      },
    ]);
    const result = ours[2]!.content[0]!;
    if (result.type !== "tool_result") throw new Error("expected a tool result");
    const masked = { ...ours[2]!, content: [{ ...result, content: "[redacted]" }] };
    const plain = {
      ...ours[2]!,
      content: [{ type: "tool_result" as const, toolUseId: "c1", content: "ok", isError: false }],
    };
    expect(toModelMessages([ours[1]!, masked])[1]).toEqual({
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "c1",
          toolName: "grep",
          output: { type: "text", value: "[redacted]" },
        },
      ],
    });
    expect(toModelMessages([ours[1]!, plain])[1]).toMatchObject({
      content: [{ toolName: "grep", output: { type: "text", value: "ok" } }],
    });
  });

  it("drops a result's tool name exactly when the latest call before it with its id names the same tool", () => {
    // Few ids and names: calls reuse ids, results answer calls several messages back.
    const small = (values: string[]) => fc.constantFrom(...values);
    const call = fc
      .tuple(small(["a", "b", "c"]), small(["grep", "read"]))
      .map(([callId, name]) => ({
        type: "tool-call" as const,
        toolCallId: callId,
        toolName: name,
        input: {},
      }));
    const result = fc
      .tuple(small(["a", "b", "c", "d"]), small(["grep", "read"]), fc.boolean())
      .map(([callId, name, error]) => ({
        type: "tool-result" as const,
        toolCallId: callId,
        toolName: name,
        output: { type: error ? ("error-text" as const) : ("text" as const), value: "out" },
      }));
    const loop = fc.array(
      fc.oneof(
        fc.array(fc.oneof(call, textPart), { minLength: 1, maxLength: 3 }).map((content) => ({
          role: "assistant" as const,
          content,
        })),
        fc
          .array(result, { minLength: 1, maxLength: 3 })
          .map((content) => ({ role: "tool" as const, content })),
        text.map((content) => ({ role: "user" as const, content })),
      ),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(loop, (messages: ModelMessage[]) => {
        const ours = fromModelMessages(messages, { sessionId: "s" });
        // The reference: every call before, in order, the latest with an id winning.
        const calls = new Map<string, string>();
        messages.forEach((message, index) => {
          if (typeof message.content === "string") return;
          message.content.forEach((part, at) => {
            if (part.type === "tool-call") calls.set(part.toolCallId, part.toolName);
            if (part.type !== "tool-result" || message.role !== "tool") return;
            const block = ours[index]!.content[at]!;
            const named = calls.get(part.toolCallId) === part.toolName;
            expect(block.type === "tool_result" && block.extra === undefined).toBe(named);
          });
        });
        // Written as it came; sent so, where no answered call's id comes again.
        expect(writeModelMessages(ours)).toEqual(messages);
        const sent = toModelMessages(ours);
        if (!reusesToolIds(ours)) expect(sent).toEqual(messages);
        else {
          // A reused id goes as `<id>_<n>`, the messages otherwise as they came.
          const sentIds = toolCallIds(sent);
          const ids = toolCallIds(messages);
          expect(sentIds.length).toBe(ids.length);
          sentIds.forEach((id, index) => {
            const was = ids[index]!;
            if (id !== was) expect(id.startsWith(`${was}_`)).toBe(true);
          });
          const strip = (key: string, value: unknown) => (key === "toolCallId" ? "" : value);
          expect(JSON.parse(JSON.stringify(sent, strip))).toEqual(
            JSON.parse(JSON.stringify(messages, strip)),
          );
        }
      }),
      { numRuns: 300 },
    );
  });

  it("names the path of every malformed message or part", () => {
    const bad = [
      { role: "user", content: [{ type: "tool-call" }] },
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "", toolName: "x", input: {} }],
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "c", toolName: "x", output: { type: "nope" } },
        ],
      },
      { role: "robot", content: "hi" },
      {
        role: "assistant",
        content: [{ type: "text", text: "x", providerOptions: { a: { n: Number.NaN } } }],
      },
    ];
    let error: unknown;
    try {
      fromModelMessages(bad);
    } catch (caught) {
      error = caught;
    }
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues.map((issue) => issue.path.join("."))).toEqual([
      "0.content.0.type",
      "1.content.0.toolCallId",
      "2.content.0.output",
      "3.role",
      "4.content.0.providerOptions.a.n",
    ]);
    expect(() => fromModelMessages("nope" as never)).toThrow(/must be an array of messages/);
    expect(() => fromModelMessages([], { firstTurnNumber: 0 })).toThrow(/firstTurnNumber/);
  });
});
