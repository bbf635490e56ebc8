import { describe, expect, it } from "vitest";
import { ConversationBuilder } from "../testing/index.js";
import { assertMessages } from "./entry-validation.js";
import { ValidationError } from "./errors.js";
import type { Message } from "./message.js";

function conversation(): Message[] {
  return new ConversationBuilder({ idPrefix: "s" })
    .user("read the file")
    .toolCall({ name: "read", input: { path: "a.ts" }, result: "contents" })
    .assistant("done")
    .build();
}

function issuesOf(messages: unknown): { path: (string | number)[]; message: string }[] {
  try {
    assertMessages(messages, "conversation");
  } catch (error) {
    if (error instanceof ValidationError) return error.issues;
    throw error;
  }
  throw new Error("expected a ValidationError");
}

describe("message schemas: a broken block is named by its field", () => {
  it("names the field of a block whose type is known", () => {
    const messages = structuredClone(conversation());
    const result = messages[2]!.content[0] as { toolUseId: string };
    result.toolUseId = "";
    expect(issuesOf(messages)).toEqual([
      { path: [2, "content", 0, "toolUseId"], message: "must be a non-empty string" },
    ]);
  });

  it("names an unknown block type and the types there are", () => {
    const messages = structuredClone(conversation());
    (messages[1]!.content[0] as { type: string }).type = "tool_call";
    const [issue] = issuesOf(messages);
    expect(issue?.path).toEqual([1, "content", 0, "type"]);
    expect(issue?.message).toMatch(/'text' \| 'image' .*'tool_use' \| 'tool_result'/);
  });

  it("names a value JSON cannot hold inside a tool input, a circular one too", () => {
    const messages = structuredClone(conversation());
    const use = messages[1]!.content[0] as { input: Record<string, unknown> };
    use.input = { path: "a.ts", range: [1, Number.NaN] };
    expect(issuesOf(messages)).toEqual([
      { path: [1, "content", 0, "input"], message: "range[1] must be a finite number" },
    ]);
    const options: Record<string, unknown> = {};
    options["self"] = options;
    use.input = { path: "a.ts", options };
    expect(issuesOf(messages)).toEqual([
      {
        path: [1, "content", 0, "input"],
        message: "options.self must not contain itself (circular reference)",
      },
    ]);
  });
});
