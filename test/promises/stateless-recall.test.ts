import { describe, expect, it } from "vitest";
import {
  answerRecall as answerAnthropicRecall,
  compactAnthropicMessages,
  toAnthropicMessages,
} from "../../src/anthropic/index.js";
import {
  answerRecallToolCall,
  compactChatMessages,
  toChatMessages,
} from "../../src/chat-completions/index.js";
import { ValidationError } from "../../src/core/errors.js";
import type { Message } from "../../src/core/message.js";
import type { ToolResultInput } from "../../src/core/tool-result-input.js";
import {
  answerRecall as answerGeminiRecall,
  compactGeminiContents,
  toGeminiContents,
} from "../../src/gemini/index.js";
import {
  answerRecallFunctionCall,
  compactResponsesInput,
  toResponsesInput,
} from "../../src/openai/index.js";
import type { RecallToolOptions } from "../../src/session/recall-source.js";
import { MemoryArchive } from "../../src/store/index.js";
import { ConversationBuilder } from "../../src/testing/index.js";

// A stateless server recalls what a one-call helper removed from the `archive` it gave the
// helper: each provider's recall answerer takes `{ archive, sessionId? }` as the AI SDK's and
// LangChain's `recallTool` do, and refuses a source that is neither that nor a session.

type Answer = (source: RecallToolOptions, handle: string) => Promise<ToolResultInput>;

interface Path {
  compact: (
    messages: readonly Message[],
    archive: MemoryArchive,
  ) => Promise<{ messages: unknown[] }>;
  answer: Answer;
}

const options = (archive: MemoryArchive) => ({ contextLimit: 8_000, archive, sessionId: "chat-1" });

const PATHS: Record<string, Path> = {
  compactAnthropicMessages: {
    compact: (messages, archive) =>
      compactAnthropicMessages(toAnthropicMessages(messages), options(archive)),
    answer: (source, handle) => answerAnthropicRecall(source, { id: "r1", input: { handle } }),
  },
  compactGeminiContents: {
    compact: (messages, archive) =>
      compactGeminiContents(toGeminiContents(messages), options(archive)),
    answer: (source, handle) => answerGeminiRecall(source, { id: "r1", input: { handle } }),
  },
  compactResponsesInput: {
    compact: (messages, archive) =>
      compactResponsesInput(toResponsesInput(messages), options(archive)),
    answer: (source, handle) =>
      answerRecallFunctionCall(source, { call_id: "r1", arguments: JSON.stringify({ handle }) }),
  },
  compactChatMessages: {
    compact: (messages, archive) => compactChatMessages(toChatMessages(messages), options(archive)),
    answer: (source, handle) =>
      answerRecallToolCall(source, {
        id: "r1",
        function: { name: "recall_compacted", arguments: JSON.stringify({ handle }) },
      }),
  },
};

/** Reads of sixteen files, each long, then a question: the oldest reads are masked. */
function history(): Message[] {
  const builder = new ConversationBuilder().user("Read the files.");
  for (let read = 0; read < 16; read += 1)
    builder.toolCall({
      name: "read_file",
      input: { path: `f${read}.ts` },
      result: `// file f${read}.ts\n${"const x = 1;\n".repeat(120)}`,
    });
  return builder.assistant("Read them all.").user("What does f0.ts hold?").build();
}

describe.each(Object.entries(PATHS))("%s", (_name, path) => {
  it("answers a recall from the archive it was given, with the original", async () => {
    const archive = new MemoryArchive();
    const { messages } = await path.compact(history(), archive);
    const sent = JSON.stringify(messages);
    const handle = /\[recall (r\d+-[0-9a-f]{4})\]/.exec(sent)?.[1];
    expect(handle).toBeDefined();
    const answer = await path.answer({ archive, sessionId: "chat-1" }, handle!);
    expect("is_error" in answer ? answer.is_error : false).toBeFalsy();
    expect(JSON.stringify(answer.content)).toContain("// file f");
    // Another session's archive does not hold it: an error result the model reads.
    const other = await path.answer({ archive }, handle!);
    expect(other).toMatchObject({ is_error: true });
    // What is neither a session nor `{ archive }` is refused, naming it.
    await expect(path.answer({} as never, handle!)).rejects.toThrow(ValidationError);
  });
});

describe("answerRecallFunctionCall", () => {
  it("refuses arguments that are not JSON with an error result, as the compact tool does", async () => {
    const answer = await answerRecallFunctionCall(
      { archive: new MemoryArchive() },
      { call_id: "r1", arguments: "{handle" },
    );
    expect(answer).toMatchObject({ tool_use_id: "r1", is_error: true });
    expect(String(answer.content)).toContain("must be a JSON object");
  });
});
