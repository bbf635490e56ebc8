import OpenAI from "openai";
import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { answerRecallToolCall, compactChatMessages } from "../../src/chat-completions/index.js";
import { ValidationError } from "../../src/core/errors.js";
import { MemoryArchive } from "../../src/session/archive.js";
import type { CompactMessagesOptions } from "../../src/session/stateless-options.js";
import {
  ChatCompletionsServer,
  type ChatScript,
  roughTokens,
} from "../support/chat-completions-server.js";

// compactChatMessages as a stateless caller uses it: the caller keeps the whole `messages`
// history, compacts it before each request, and sends it through the real openai SDK to the
// loopback Chat Completions API, here a DeepSeek-like host that refuses an assistant tool-call
// message sent back without the `reasoning_content` it issued with it.

const SMALL_WINDOW = 12_000;
const SYSTEM: ChatCompletionMessageParam = {
  role: "system",
  content: "You are a careful coding agent. Never modify files under vendor/.",
};
const USER: ChatCompletionMessageParam = {
  role: "user",
  content: "Read every file under src/ and report what each one exports.",
};
const READ_TOOL = {
  type: "function" as const,
  function: {
    name: "read_file",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
};

/** The model: `steps` requests with one read each (its reasoning issued with it), then an answer. */
function reader(steps: number): ChatScript {
  let done = 0;
  return () => {
    if (done >= steps) return { content: "Every file is read.", reasoning: "All done." };
    done += 1;
    const path = `src/f${done}.ts`;
    return {
      toolCalls: [{ name: "read_file", arguments: JSON.stringify({ path }) }],
      reasoning: `Step ${done}: ${path} is next; ${"I keep the plan in mind. ".repeat(8)}`,
    };
  };
}

/** A file's text, about 3.5 KB, different for each path. */
const fileText = (path: string) =>
  `// ${path}\n${Array.from({ length: 70 }, (_, line) => `export const v${line} = "${path}:${line}";`).join("\n")}`;

let server: ChatCompletionsServer;
let client: OpenAI;

beforeEach(async () => {
  server = await ChatCompletionsServer.start(reader(0), {
    reasoning: "required-for-tool-calls",
    contextWindow: SMALL_WINDOW,
  });
  client = new OpenAI({ baseURL: server.url, apiKey: "x", maxRetries: 0 });
});

afterEach(async () => {
  await server.close();
});

/** The stateless loop: compact the history, send it, append the reply and the tool messages. */
async function toolLoop(steps: number, options: CompactMessagesOptions) {
  server.script = reader(steps);
  let history: ChatCompletionMessageParam[] = [SYSTEM, USER];
  const sent: ChatCompletionMessageParam[][] = [];
  let compactions = 0;
  for (;;) {
    const before = structuredClone(history);
    const { messages, compacted } = await compactChatMessages(history, options);
    expect(history).toEqual(before);
    if (compacted) compactions += 1;
    else expect(messages).toBe(history);
    sent.push(messages);
    const completion = await client.chat.completions.create({
      model: "deepseek-v4-pro",
      messages,
      tools: [READ_TOOL],
    });
    const assistant = completion.choices[0]!.message;
    const calls = (assistant.tool_calls ?? []) as ChatCompletionMessageFunctionToolCall[];
    const results: ChatCompletionMessageParam[] = calls.map((call) => ({
      role: "tool",
      tool_call_id: call.id,
      content: fileText(String(JSON.parse(call.function.arguments).path)),
    }));
    history = [...messages, assistant as ChatCompletionMessageParam, ...results];
    if (calls.length === 0) return { history, sent, compactions };
  }
}

describe("compactChatMessages", () => {
  it("keeps a stateless tool loop of 45 requests inside a small window on a DeepSeek-like host", async () => {
    const { history, sent, compactions } = await toolLoop(44, { contextLimit: SMALL_WINDOW });
    expect(server.refusals).toEqual([]);
    expect(sent).toHaveLength(45);
    expect(server.requests).toHaveLength(45);
    expect(compactions).toBeGreaterThanOrEqual(1);
    // Uncompacted, the reads alone would take more than twice the window.
    expect(44 * roughTokens(fileText("src/f10.ts"))).toBeGreaterThan(2 * SMALL_WINDOW);
    for (const request of server.requests) {
      const messages = request.body["messages"] as ChatCompletionMessageParam[];
      expect(messages[0]).toEqual(SYSTEM);
      expect(messages.filter((message) => message.role === "system")).toHaveLength(1);
      expect(JSON.stringify(messages)).toContain(USER.content as string);
      expect(roughTokens(messages) + roughTokens([READ_TOOL])).toBeLessThan(SMALL_WINDOW);
      // Every assistant tool-call message still sent carries its reasoning.
      for (const message of messages) {
        if (message.role === "assistant" && (message.tool_calls?.length ?? 0) > 0) {
          expect(message).toHaveProperty("reasoning_content", expect.stringMatching(/^Step /));
        }
      }
    }
    // The latest reads are kept verbatim.
    expect(JSON.stringify(history)).toContain(JSON.stringify(fileText("src/f44.ts")).slice(1, -1));
  });

  it("resolves with the very same array when nothing needs doing", async () => {
    const { history } = await toolLoop(2, { contextLimit: 200_000 });
    expect(history.length).toBe(7);
    const copy = structuredClone(history);
    const outcome = await compactChatMessages(history, { contextLimit: 200_000 });
    expect(outcome.messages).toBe(history);
    expect(outcome.compacted).toBe(false);
    expect(outcome.contextUsed).toBeGreaterThan(0);
    expect(history).toEqual(copy);
  });

  it("rejects bad input with a ValidationError naming the field, leaving the input alone", async () => {
    const good: ChatCompletionMessageParam[] = [SYSTEM, USER];
    const bad = [SYSTEM, { role: "user", content: 7 }];
    const snapshots = [structuredClone(good), structuredClone(bad)];
    const paths = async (promise: Promise<unknown>) => {
      const error = await promise.then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ValidationError);
      return (error as ValidationError).issues.map((issue) => issue.path.join("."));
    };
    expect(await paths(compactChatMessages("hi" as never, { contextLimit: 1_000 }))).toEqual([""]);
    expect(await paths(compactChatMessages(bad, { contextLimit: 1_000 }))).toEqual(["1.content"]);
    expect(
      await paths(compactChatMessages(good, { contextLimit: 1_000, contextUsed: Number.NaN })),
    ).toEqual(["contextUsed"]);
    expect(await paths(compactChatMessages(good, { contextLimit: -1 }))).toEqual(["contextLimit"]);
    expect(
      await paths(
        compactChatMessages(good, { contextLimit: 1_000, trimOnOverflow: "yes" as never }),
      ),
    ).toEqual(["trimOnOverflow"]);
    expect([good, bad]).toEqual(snapshots);
  });

  it("keeps what it replaced in the archive, recallable by the handle its placeholder names", async () => {
    const archive = new MemoryArchive();
    const { sent } = await toolLoop(20, { contextLimit: SMALL_WINDOW, archive });
    expect(server.refusals).toEqual([]);
    const last = JSON.stringify(sent.at(-1));
    const handlesIn = (text: string) =>
      [...text.matchAll(/\[recall (r\d+-[0-9a-f]{4})\]/g)].map((match) => match[1]!);
    expect(handlesIn(last).length).toBeGreaterThan(0);
    // A notice folded into a later one is recalled through the later one's record: follow them.
    const handles = [...new Set(handlesIn(last))];
    for (let index = 0; index < handles.length && handles.length < 200; index += 1) {
      const record = archive.get("stateless", handles[index]!);
      for (const handle of handlesIn(JSON.stringify(record)))
        if (!handles.includes(handle)) handles.push(handle);
    }
    // The first read is no longer in what was sent, but the archive holds it.
    const first = fileText("src/f1.ts");
    expect(last).not.toContain(JSON.stringify(first).slice(1, -1));
    const records = handles.map((handle) => archive.get("stateless", handle));
    expect(records.every((record) => record !== undefined)).toBe(true);
    // The recall tool answers from the archive with the original.
    const session = { archive, contextLimit: SMALL_WINDOW * 4 };
    const answers = await Promise.all(
      handles.map((handle, index) =>
        answerRecallToolCall(session, {
          id: `recall-${index}`,
          function: { name: "recall_compacted", arguments: JSON.stringify({ handle }) },
        }),
      ),
    );
    expect(answers.filter((answer) => "is_error" in answer || "isError" in answer)).toEqual([]);
    expect(answers.map((answer) => String(answer.content)).join("\n")).toContain(first);
  });

  it("moves a tool message given after the user's words up to its call, each message's fields its own", async () => {
    const call = (id: string) => ({
      id,
      type: "function" as const,
      function: { name: "read_file", arguments: "{}" },
    });
    const messages = [
      USER,
      { role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
      { role: "tool", tool_call_id: "a", content: "A" },
      { role: "user", name: "alice", content: [{ type: "text", text: "meanwhile" }] },
      { role: "tool", tool_call_id: "b", content: "B", name: "read_file" },
      { role: "assistant", content: "done" },
      { role: "user", content: "next" },
    ] as ChatCompletionMessageParam[];
    const { messages: out } = await compactChatMessages(messages, { contextLimit: 200_000 });
    expect(out).toEqual([
      messages[0],
      messages[1],
      messages[2],
      messages[4],
      messages[3],
      messages[5],
      messages[6],
    ]);
  });
});
