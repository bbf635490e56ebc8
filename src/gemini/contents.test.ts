import { type Content, Language, Outcome } from "@google/genai";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import type { Message, ToolResultBlock, ToolUseBlock } from "../core/message.js";
import { AgentSession } from "../session/agent-session.js";
import { fromGeminiContents } from "./contents-in.js";
import { toGeminiContents } from "./contents-out.js";

/** A history with every kind of part: thoughts, parallel and sequential calls, media, code execution. */
const HISTORY: Content[] = [
  {
    role: "user",
    parts: [
      { text: "Read a.ts and b.ts" },
      { inlineData: { mimeType: "image/png", data: "iVBOR" } },
    ],
  },
  {
    role: "model",
    parts: [
      { text: "Both files are needed.", thought: true, thoughtSignature: "T1" },
      { functionCall: { name: "read", args: { path: "a.ts" } }, thoughtSignature: "S1" },
      { functionCall: { name: "read", args: { path: "b.ts" } } },
    ],
  },
  {
    role: "user",
    parts: [
      { functionResponse: { name: "read", response: { output: "export const a = 1;" } } },
      { functionResponse: { name: "read", response: { content: "b", lines: 2 } } },
    ],
  },
  {
    role: "model",
    parts: [{ functionCall: { id: "c3", name: "grep", args: { q: "x" } }, thoughtSignature: "S2" }],
  },
  {
    role: "user",
    parts: [
      {
        functionResponse: {
          id: "c3",
          name: "grep",
          response: { error: "no match" },
          parts: [{ inlineData: { mimeType: "image/png", data: "AAAA" } }],
        },
      },
    ],
  },
  {
    role: "model",
    parts: [
      { executableCode: { language: Language.PYTHON, code: "print(1)" } },
      { codeExecutionResult: { outcome: Outcome.OUTCOME_OK, output: "1" } },
      { text: "Done.", thoughtSignature: "S3" },
    ],
  },
  {
    role: "user",
    parts: [
      { fileData: { mimeType: "application/pdf", fileUri: "gs://bucket/doc.pdf" } },
      { fileData: { mimeType: "image/jpeg", fileUri: "https://example.com/y.jpg" } },
      { text: "and this", partMetadata: { source: "clipboard" } },
    ],
  },
];

const ids = () => {
  let next = 0;
  return () => `gen-${++next}`;
};
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe("fromGeminiContents / toGeminiContents", () => {
  it("round-trips every part exactly: thoughts and signatures in place, ids only where they were", () => {
    const messages = fromGeminiContents(HISTORY, { generateId: ids() });
    expect(toGeminiContents(messages)).toEqual(HISTORY);
    expect(messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
  });

  it("maps parts onto our blocks: a thought whole, calls and responses paired by name", () => {
    const messages = fromGeminiContents(HISTORY, { generateId: ids() });
    const [thought, first, second] = messages[1]!.content;
    // A thought is carried whole, its signature with it: no compaction edit makes it stale.
    expect(thought).toEqual({
      type: "opaque",
      block: { text: "Both files are needed.", thought: true, thoughtSignature: "T1" },
    });
    expect(first).toMatchObject({
      type: "tool_use",
      id: "gen-1",
      name: "read",
      input: { path: "a.ts" },
    });
    expect(second).toMatchObject({ type: "tool_use", id: "gen-2" });
    const results = messages[2]!.content as ToolResultBlock[];
    expect(results.map((result) => [result.toolUseId, result.content, result.isError])).toEqual([
      ["gen-1", "export const a = 1;", false],
      ["gen-2", '{"content":"b","lines":2}', false],
    ]);
    const grep = messages[4]!.content[0] as ToolResultBlock;
    expect(grep).toMatchObject({ toolUseId: "c3", isError: true });
    expect(grep.content).toEqual([
      { type: "text", text: "no match" },
      { type: "image", source: { type: "base64", mediaType: "image/png", data: "AAAA" } },
    ]);
    // Only the function results continue a turn; the user's request opens one.
    expect(messages.map((message) => message.turnId.number)).toEqual([1, 1, 1, 1, 1, 1, 2]);
    expect(messages[6]!.content[1]).toMatchObject({
      type: "image",
      source: { type: "url", url: "https://example.com/y.jpg" },
    });
    expect(messages[6]!.content[0]).toMatchObject({ type: "opaque" });
  });

  it("keeps signatures and parts when compaction rewrites a result: the response is rebuilt from the new text", () => {
    const messages = fromGeminiContents(HISTORY, { generateId: ids() });
    const results = messages[2]!.content as ToolResultBlock[];
    const masked: Message = {
      ...messages[2]!,
      content: results.map((result) => ({ ...result, content: "[Content redacted]" })),
    };
    const contents = toGeminiContents([messages[0]!, messages[1]!, masked]);
    expect(contents[1]).toEqual(HISTORY[1]);
    expect(contents[2]!.parts).toEqual([
      { functionResponse: { name: "read", response: { output: "[Content redacted]" } } },
      { functionResponse: { name: "read", response: { output: "[Content redacted]" } } },
    ]);
  });

  it("joins a session's consecutive messages of one role into one content, and keeps contents read apart apart", () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.append(...fromGeminiContents(HISTORY.slice(0, 2), { generateId: ids() }));
    session.addToolResults([
      { type: "tool_result", toolUseId: "gen-1", content: "A" },
      { type: "tool_result", toolUseId: "gen-2", content: "B", isError: true },
    ]);
    session.addSystemMessage("Answer briefly.");
    const contents = toGeminiContents(session.messages);
    expect(contents.map((content) => content.role)).toEqual(["user", "model", "user"]);
    expect(contents[2]!.parts).toEqual([
      { functionResponse: { name: "read", response: { output: "A" } } },
      { functionResponse: { name: "read", response: { error: "B" } } },
      { text: "Answer briefly." },
    ]);
    const apart: Content[] = [
      { role: "user", parts: [{ text: "one" }] },
      { role: "user", parts: [{ text: "two" }] },
      { parts: [{ text: "three" }] },
    ];
    expect(toGeminiContents(fromGeminiContents(apart))).toEqual(apart);
  });

  it("sends ids with responses to calls that had one, and leaves out Anthropic's thinking", () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("go");
    session.addAssistant([
      { type: "thinking", thinking: "hmm", signature: "anthropic-signature" },
      { type: "tool_use", id: "toolu_1", name: "read", input: {} },
    ]);
    session.addToolResults([{ type: "tool_result", toolUseId: "toolu_1", content: "ok" }]);
    expect(toGeminiContents(session.messages)).toEqual([
      { role: "user", parts: [{ text: "go" }] },
      { role: "model", parts: [{ functionCall: { id: "toolu_1", name: "read", args: {} } }] },
      {
        role: "user",
        parts: [{ functionResponse: { id: "toolu_1", name: "read", response: { output: "ok" } } }],
      },
    ]);
  });

  it("copies what it takes and gives: neither side shares an object with the other", () => {
    const history = copy(HISTORY);
    const messages = fromGeminiContents(history, { generateId: ids() });
    (history[1]!.parts![1]!.functionCall!.args as Record<string, unknown>)["path"] = "changed";
    expect((messages[1]!.content[1] as ToolUseBlock).input).toEqual({ path: "a.ts" });
    const out = toGeminiContents(messages);
    out[5]!.parts![0]!.executableCode!.code = "changed";
    expect(toGeminiContents(messages)).toEqual(HISTORY);
  });

  it("refuses malformed contents with a ValidationError naming each path", () => {
    const bad = [
      { role: "assistant", parts: [{ text: "x" }] },
      { role: "model", parts: [] },
      { role: "model", parts: [{ functionCall: { args: {} } }, "text"] },
    ];
    const error = (() => {
      try {
        fromGeminiContents(bad);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((issue) => issue.path.join("."))).toEqual([
      "0.role",
      "1.parts",
      "2.parts.0.functionCall.name",
      "2.parts.1",
    ]);
    expect(() => fromGeminiContents([], { sessionId: "" })).toThrow(/sessionId/);
    // A hole is no content: named, not sent on as `null`.
    const holed: unknown[] = [{ role: "user", parts: [{ text: "a" }] }];
    holed[2] = { role: "user", parts: [{ text: "c" }] };
    expect(() => fromGeminiContents(holed)).toThrow(/\[1\]: must be a content object/);
  });
});
