import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { compactAnthropicMessages, toAnthropicMessages } from "../../src/anthropic/index.js";
import { isCompactionResultEmpty } from "../../src/core/compactor.js";
import { CompactionError, LLMCompactor, type LlmClient, ValidationError } from "../../src/index.js";
import { compactLangChainMessages, toLangChainMessages } from "../../src/langchain/index.js";
import type { CompactMessagesOptions } from "../../src/session/stateless-options.js";
import { CompactionMemory } from "../../src/store/index.js";
import { continues, FORMATS, type Format, serialized, turn } from "./memory-formats.js";

// A server whose clients send the whole, uncompacted history with each request: with a
// `CompactionMemory`, each helper goes on from what it sent, so requests grow append-only
// between compactions (the prompt cache reads them) instead of changing from the start at
// every request as the history grows.

interface ServerRun {
  requests: number;
  /** Requests that do not start with the request before them. */
  breaks: number;
  /** Calls whose compactors changed something. */
  compactions: number;
}

/**
 * A client that appends a turn to its whole history and sends it all, `turns` times; the
 * server compacts each with the helper (and `memory`, when given). The history's objects are
 * the client's own throughout (what a LangChain app keeps); `parse` sends a copy parsed anew.
 */
async function serve(
  format: Format,
  turns: number,
  options: CompactMessagesOptions,
  parse = false,
): Promise<ServerRun> {
  const history: unknown[] = [];
  const run = { requests: 0, breaks: 0, compactions: 0 };
  let previous: string[] = [];
  for (let number = 1; number <= turns; number += 1) {
    history.push(...format.to(turn(number)));
    const body = parse ? (JSON.parse(JSON.stringify(history)) as unknown[]) : history;
    const { messages, result } = await format.compact(body, options);
    const request = serialized(messages);
    if (!continues(request, previous)) run.breaks += 1;
    if (!isCompactionResultEmpty(result)) run.compactions += 1;
    run.requests += 1;
    previous = request;
  }
  return run;
}

describe("CompactionMemory: a whole history sent with each request compacts append-only", () => {
  for (const [name, format] of Object.entries(FORMATS))
    it(name, async () => {
      const without = await serve(format, 24, { contextLimit: 12_000 });
      const memory = new CompactionMemory();
      const withMemory = await serve(format, 24, { contextLimit: 12_000, memory });
      // Without it, every request over the threshold is compacted anew, from its start.
      expect(without.compactions).toBeGreaterThan(10);
      expect(without.breaks).toBe(without.compactions);
      // With it, a request starts anew only where a compaction ran, and fewer run.
      expect(withMemory.compactions).toBeGreaterThan(0);
      expect(withMemory.breaks).toBe(withMemory.compactions);
      expect(withMemory.compactions * 2).toBeLessThan(without.compactions);
    });

  it("finds the conversation in a body parsed anew (messages compared by value)", async () => {
    const memory = new CompactionMemory();
    const run = await serve(
      FORMATS["compactAnthropicMessages"]!,
      24,
      {
        contextLimit: 12_000,
        memory,
      },
      true,
    );
    expect(run.compactions).toBeGreaterThan(0);
    expect(run.breaks).toBe(run.compactions);
  });
});

describe("CompactionMemory keeps what was sent apart from the caller's arrays", () => {
  for (const appendsTo of ["its input", "what it got back"] as const)
    it(`a caller appending to ${appendsTo} changes nothing remembered`, async () => {
      const memory = new CompactionMemory();
      const options = { contextLimit: 12_000, memory };
      const history = Array.from({ length: 12 }, (_, at) =>
        toAnthropicMessages(turn(at + 1)),
      ).flat();
      const first = await compactAnthropicMessages(history, options);
      expect(first.compacted).toBe(true);
      const sent = serialized(first.messages);
      // The client appends the next turn to the array it sent, or to the one it got back (a
      // view of its own), and sends its whole history.
      const next = toAnthropicMessages(turn(13));
      (appendsTo === "its input" ? history : first.messages).push(...next);
      const whole = appendsTo === "its input" ? history : [...history, ...next];
      const second = await compactAnthropicMessages(whole, options);
      const request = serialized(second.messages);
      expect(continues(request, sent)).toBe(true);
      // The new turn once, after what was sent.
      expect(request.slice(sent.length)).toEqual(serialized(next));
    });

  it("a history that changed before its end is compacted as it is, not continued", async () => {
    const memory = new CompactionMemory();
    const options = { contextLimit: 12_000, memory };
    const history = Array.from({ length: 12 }, (_, at) => toAnthropicMessages(turn(at + 1))).flat();
    await compactAnthropicMessages(history, options);
    // The user edits their first request and the client sends the history again.
    const edited = [{ role: "user" as const, content: "Request 1, edited." }, ...history.slice(1)];
    const fresh = await compactAnthropicMessages(edited, { contextLimit: 12_000 });
    const remembered = await compactAnthropicMessages(edited, options);
    expect(serialized(remembered.messages)).toEqual(serialized(fresh.messages));
  });

  it("remembers the latest `conversations` of each helper", async () => {
    const memory = new CompactionMemory({ conversations: 1 });
    const options = { contextLimit: 12_000, memory };
    const history = (tag: string) =>
      Array.from({ length: 12 }, (_, at) =>
        toAnthropicMessages(turn(at + 1)).map((message, index) =>
          index === 0
            ? { ...message, content: `${tag}: ${JSON.stringify(message.content)}` }
            : message,
        ),
      ).flat();
    const a = history("a");
    const b = history("b");
    const aFirst = serialized((await compactAnthropicMessages(a, options)).messages);
    await compactAnthropicMessages(b, options);
    // `a` was forgotten for `b`: its next request is compacted from its whole history again.
    a.push(...toAnthropicMessages(turn(13)));
    const fresh = await compactAnthropicMessages(a, { contextLimit: 12_000 });
    const again = await compactAnthropicMessages(a, options);
    expect(serialized(again.messages)).toEqual(serialized(fresh.messages));
    expect(continues(serialized(again.messages), aFirst)).toBe(
      continues(serialized(fresh.messages), aFirst),
    );
  });
});

describe("CompactionMemory's options", () => {
  it("refuses a memory that is not one, naming the option", async () => {
    const call = compactAnthropicMessages([], {
      contextLimit: 12_000,
      memory: {} as CompactionMemory,
    });
    await expect(call).rejects.toThrow(ValidationError);
    await expect(call).rejects.toThrow(/memory: must be a CompactionMemory/);
  });

  it("refuses a count of conversations that is not a positive whole number", () => {
    for (const conversations of [0, -1, 1.5, Number.NaN])
      expect(() => new CompactionMemory({ conversations })).toThrow(/conversations/);
    expect(() => new CompactionMemory({ size: 3 } as never)).toThrow(ValidationError);
  });
});

describe("CompactionMemory and malformed messages", () => {
  it("names a malformed message added since at its place in the caller's messages", async () => {
    const memory = new CompactionMemory();
    const options = { contextLimit: 12_000, memory };
    const history: unknown[] = Array.from({ length: 12 }, (_, at) =>
      toAnthropicMessages(turn(at + 1)),
    ).flat();
    expect((await compactAnthropicMessages(history, options)).compacted).toBe(true);
    history.push({ role: "user", content: [{ type: "text" }] });
    const error = await compactAnthropicMessages(history, options).catch((caught) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect(String(error.message)).toContain(`${history.length - 1}`);
    expect((error as ValidationError).issues[0]?.path.slice(0, 2)).toEqual([
      "messages",
      history.length - 1,
    ]);
  });
});

describe("CompactionMemory and LangChain's interrupted calls", () => {
  it("finds a LangChain conversation with a call it went on without (closed anew at each call)", async () => {
    const memory = new CompactionMemory();
    // A run interrupted between the model's call and its result, then the user went on.
    const history: BaseMessage[] = [
      new HumanMessage("Start."),
      new AIMessage({
        content: "",
        tool_calls: [{ id: "interrupted", name: "read_file", args: { path: "a.ts" } }],
      }),
    ];
    const run = { breaks: 0, compactions: 0 };
    let previous: string[] = [];
    for (let number = 1; number <= 24; number += 1) {
      history.push(...toLangChainMessages(turn(number)));
      const { messages, result } = await compactLangChainMessages(history, {
        contextLimit: 12_000,
        memory,
      });
      const request = serialized(messages);
      if (!continues(request, previous)) run.breaks += 1;
      if (!isCompactionResultEmpty(result)) run.compactions += 1;
      previous = request;
    }
    expect(run.compactions).toBeGreaterThan(0);
    // Without the closing made after the continuation: never found, every request compacted anew.
    expect(run.compactions).toBeLessThan(10);
    expect(run.breaks).toBe(run.compactions);
  });
});

/** A summarizer whose answers wait for `answerNewest`, each summary numbered by its request. */
function heldSummarizer() {
  const answers: (() => void)[] = [];
  let asked = 0;
  const client: LlmClient = {
    complete: () =>
      new Promise((resolve) => {
        const number = ++asked;
        answers.push(() => resolve(`Summary ${number}: the user asked to read modules.`));
      }),
  };
  return { client, answerNewest: () => answers.pop()?.() };
}

/** Runs `calls` to their end, answering the newest summary request at each tick. */
async function settle<R>(calls: Promise<R>[], answerNewest: () => void): Promise<R[]> {
  let settled = 0;
  for (const call of calls) call.finally(() => (settled += 1)).catch(() => {});
  while (settled < calls.length) {
    await new Promise((resolve) => setImmediate(resolve));
    answerNewest();
  }
  return Promise.all(calls);
}

describe("CompactionMemory and a retry while the first request still runs", () => {
  for (const [name, format] of Object.entries(FORMATS))
    it(`${name}: both send the same (one summary, whichever reply the client keeps)`, async () => {
      const memory = new CompactionMemory();
      const { client, answerNewest } = heldSummarizer();
      const options = { contextLimit: 12_000, memory, compactor: new LLMCompactor(client) };
      const history = Array.from({ length: 12 }, (_, at) => format.to(turn(at + 1))).flat();
      // The client gave up on the first and sent the same history again; the retry's summary
      // comes back first. Without waiting, each sent its own summary, and the next request
      // went on from whichever finished last.
      const [first, retry] = await settle(
        [format.compact(history, options), format.compact(history, options)],
        answerNewest,
      );
      expect(first!.compacted).toBe(true);
      expect(serialized(retry!.messages)).toEqual(serialized(first!.messages));
    });

  it("a retry aborted while it waits rejects as aborted; the first goes on", async () => {
    const memory = new CompactionMemory();
    const { client, answerNewest } = heldSummarizer();
    const options = { contextLimit: 12_000, memory, compactor: new LLMCompactor(client) };
    const history = Array.from({ length: 12 }, (_, at) => toAnthropicMessages(turn(at + 1))).flat();
    const first = compactAnthropicMessages(history, options);
    const controller = new AbortController();
    const retry = compactAnthropicMessages(history, { ...options, signal: controller.signal });
    controller.abort();
    const error = await retry.catch((caught: unknown) => caught);
    expect(CompactionError.isInstance(error) && error.code).toBe("aborted");
    const [done] = await settle([first], answerNewest);
    expect(done!.compacted).toBe(true);
  });
});
