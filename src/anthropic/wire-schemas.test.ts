import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { formatPath, ValidationError, type ValidationIssue } from "../core/errors.js";
import { fromAnthropicMessages } from "./turns.js";
import { parseWireBlocks, parseWireMessage } from "./wire-schemas.js";

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

describe("parseWireBlocks", () => {
  it("returns normalized copies of good blocks, unknown types included", () => {
    const input = { path: "a.ts", skip: undefined };
    const blocks = [
      { type: "tool_use", id: "t", name: "read", input },
      { type: "x_new", payload: [1, -0] },
    ];
    const issues: ValidationIssue[] = [];
    const parsed = parseWireBlocks(blocks, ["content"], issues);
    expect(issues).toEqual([]);
    expect(parsed).toEqual([
      { type: "tool_use", id: "t", name: "read", input: { path: "a.ts" } },
      { type: "x_new", payload: [1, -0] },
    ]);
    expect(parsed![0]!["input"]).not.toBe(input);
  });

  it("adds an issue below the path for each bad block, and returns undefined", () => {
    const issues: ValidationIssue[] = [{ path: ["earlier"], message: "kept" }];
    const parsed = parseWireBlocks(
      [{ type: "text" }, { type: "image", source: "x" }, { type: "text", text: "ok" }],
      ["content"],
      issues,
    );
    expect(parsed).toBeUndefined();
    expect(issues.map((issue) => formatPath(issue.path))).toEqual([
      "earlier",
      "content[0].text",
      "content[1].source",
    ]);
  });

  it("checks the parts of a tool result like blocks", () => {
    const issues: ValidationIssue[] = [];
    const block = { type: "tool_result", tool_use_id: "t", content: [{ type: "text", text: 1 }] };
    expect(parseWireBlocks([block], [], issues)).toBeUndefined();
    expect(issues.map((issue) => formatPath(issue.path))).toEqual(["[0].content[0].text"]);
  });
});

describe("parseWireMessage", () => {
  it("returns the role and the checked content, string or blocks", () => {
    const issues: ValidationIssue[] = [];
    expect(parseWireMessage(user("hi"), ["messages", 0], issues)).toEqual(user("hi"));
    const blocks = [{ type: "text", text: "hi", citations: undefined }];
    expect(parseWireMessage(user(blocks as never), ["messages", 1], issues)).toEqual(
      user([{ type: "text", text: "hi" }]),
    );
    expect(issues).toEqual([]);
  });

  it("adds issues below the path and returns undefined for a bad message or block", () => {
    const issues: ValidationIssue[] = [];
    expect(parseWireMessage({ role: "user" }, ["messages", 3], issues)).toBeUndefined();
    expect(parseWireMessage(user([{ type: "thinking" }] as never), ["m"], issues)).toBeUndefined();
    expect(issues.map((issue) => formatPath(issue.path))).toEqual([
      "messages[3].content",
      "m.content[0].thinking",
      "m.content[0].signature",
    ]);
  });
});

describe("validation where messages enter (fromAnthropicMessages)", () => {
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
      "messages[0].name",
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
    const error = validationError(() => fromAnthropicMessages(params as unknown[]));
    const issue = error.issues.find((candidate) => formatPath(candidate.path) === path);
    expect(issue, `${error.message}`).toBeDefined();
    expect(issue!.message).toMatch(message);
    expect(error.message).toContain(path);
  });

  it("reports a circular block", () => {
    const block: Record<string, unknown> = { type: "x_loop" };
    block["self"] = block;
    expect(validationError(() => fromAnthropicMessages([user([block] as never)])).message).toMatch(
      /messages\[0\]\.content\[0\]\.self: must not contain itself/,
    );
  });

  it("reports every bad message, not only the first", () => {
    const error = validationError(() =>
      fromAnthropicMessages([
        { role: "robot", content: "a" },
        user("ok"),
        { role: "user", content: 3 },
      ]),
    );
    expect(error.issues.map((issue) => formatPath(issue.path))).toEqual([
      "messages[0].role",
      "messages[2].content",
    ]);
  });
});
