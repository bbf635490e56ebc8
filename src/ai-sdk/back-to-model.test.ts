import type { ModelMessage } from "ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Compactor, emptyCompactionResult } from "../core/compactor.js";
import type { Message } from "../core/message.js";
import { backToModel } from "./back-to-model.js";
import { compactModelMessages } from "./compact-model-messages.js";
import { fromModelMessages, writeModelMessages } from "./model-messages.js";

const small = (values: string[]) => fc.constantFrom(...values);
const call = fc.tuple(small(["a", "b", "c"]), small(["grep", "read"])).map(([id, name]) => ({
  type: "tool-call" as const,
  toolCallId: id,
  toolName: name,
  input: { path: id },
}));
const result = fc
  .tuple(small(["a", "b", "c", "d"]), small(["grep", "read"]), fc.boolean())
  .map(([id, name, error]) => ({
    type: "tool-result" as const,
    toolCallId: id,
    toolName: name,
    output: { type: error ? ("error-text" as const) : ("text" as const), value: `out ${id}` },
  }));
const loop: fc.Arbitrary<ModelMessage[]> = fc.array(
  fc.oneof(
    fc
      .array(
        fc.oneof(
          call,
          fc.string().map((text) => ({ type: "text" as const, text })),
        ),
        {
          minLength: 1,
          maxLength: 3,
        },
      )
      .map((content) => ({ role: "assistant" as const, content })),
    fc
      .array(result, { minLength: 1, maxLength: 3 })
      .map((content) => ({ role: "tool" as const, content })),
    fc.string().map((content) => ({ role: "user" as const, content })),
  ),
  { maxLength: 12 },
);

/** What a compactor may do to a message: keep it, mask its results, drop it, or add one after. */
type Edit = "keep" | "mask" | "drop" | "add-text" | "add-result";
const edits = fc.array(
  small(["keep", "mask", "drop", "add-text", "add-result"]) as fc.Arbitrary<Edit>,
  {
    minLength: 12,
    maxLength: 12,
  },
);

function masked(message: Message): Message {
  const content = message.content.map((block) =>
    block.type === "tool_result" ? { ...block, content: "[masked]" } : block,
  );
  return { ...message, content };
}

function added(message: Message, kind: "add-text" | "add-result", index: number): Message {
  const content: Message["content"] =
    kind === "add-text"
      ? [{ type: "text", text: `note ${index}` }]
      : [{ type: "tool_result", toolUseId: "a", content: "again", isError: false }];
  return { ...message, role: "user", id: `added-${index}`, content };
}

describe("backToModel", () => {
  it("gives what converting the compacted conversation anew gives, unchanged messages as the very objects", () => {
    fc.assert(
      fc.property(loop, edits, (messages, plan) => {
        const ours = fromModelMessages(messages, { sessionId: "s" });
        const conversation: Message[] = [];
        ours.forEach((message, index) => {
          const edit = plan[index]!;
          // Calls stay: a result's name then comes from the latest call before it, either way.
          if (edit === "drop" && message.role !== "assistant") return;
          conversation.push(edit === "mask" ? masked(message) : message);
          if (edit === "add-text" || edit === "add-result")
            conversation.push(added(message, edit, index));
        });
        const back = backToModel(conversation, ours, messages);
        expect(back.messages).toEqual(writeModelMessages(conversation));
        conversation.forEach((message, index) => {
          const from = ours.indexOf(message);
          if (from !== -1) expect(back.sources[index]).toBe(messages[from]);
        });
      }),
      { numRuns: 400 },
    );
  });
});

describe("compactModelMessages with a compactor that writes new blocks", () => {
  it("keeps a changed message's own providerOptions, of one block or several", async () => {
    const cache = { anthropic: { cacheControl: { type: "ephemeral" } } };
    const call = (id: string) =>
      ({ type: "tool-call", toolCallId: id, toolName: "read", input: {} }) as const;
    const result = (id: string) =>
      ({
        type: "tool-result",
        toolCallId: id,
        toolName: "read",
        output: { type: "text", value: "x".repeat(3000) },
      }) as const;
    const messages: ModelMessage[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: [call("a")] },
      { role: "tool", content: [result("a")], providerOptions: cache },
      { role: "assistant", content: [call("b"), call("c")] },
      { role: "tool", content: [result("b"), result("c")], providerOptions: cache },
      { role: "assistant", content: "done" },
    ];
    // New result blocks without the fields the conversion kept (`extra`).
    const fresh = (message: Message): Message => ({
      ...message,
      content: message.content.map((block) =>
        block.type === "tool_result"
          ? { type: "tool_result", toolUseId: block.toolUseId, content: "[gone]", isError: false }
          : block,
      ),
    });
    const compactor: Compactor = {
      isAsync: false,
      shouldCompact: () => true,
      compact: (conversation) => ({
        conversation: conversation.map((message, index) =>
          index === 2 || index === 4 ? fresh(message) : message,
        ),
        result: emptyCompactionResult(),
      }),
    };
    const { messages: sent } = await compactModelMessages(messages, {
      contextLimit: 1000,
      compactor,
    });
    expect(sent[2]).toMatchObject({ role: "tool", providerOptions: cache });
    expect(sent[4]).toMatchObject({ role: "tool", providerOptions: cache });
    expect(sent[2]!.content).toEqual([
      {
        type: "tool-result",
        toolCallId: "a",
        toolName: "read",
        output: { type: "text", value: "[gone]" },
      },
    ]);
  });
});
