import type { LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { generateText, type ModelMessage, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import { type AsyncCompactor, type Compactor, emptyCompactionResult } from "../core/compactor.js";
import { CompactionError, ValidationError } from "../core/errors.js";
import { AgentSession } from "../session/agent-session.js";
import { MemoryArchive } from "../session/archive.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { compactModelMessages } from "./compact-model-messages.js";
import { fromModelMessages, toModelMessages } from "./model-messages.js";
import { compactionPrepareStep } from "./prepare-step.js";
import { recallTool } from "./recall-tool.js";

/**
 * The stateless helpers keep the session's promises: its defaults (one source), checked input,
 * a usage far below the estimate not trusted, the kind of binary data kept, recall.
 */

const SYSTEM: ModelMessage = { role: "system", content: "You are a careful coding agent." };

/** A tool loop of `calls` reads, each result about `tokens` tokens, after a system message. */
function toolLoop(calls: number, tokens = 1_000, system = true): ModelMessage[] {
  const messages: ModelMessage[] = [
    ...(system ? [SYSTEM] : []),
    { role: "user", content: "Read every file under src/. Never touch package-lock.json." },
  ];
  for (let index = 1; index <= calls; index += 1) {
    const toolCallId = `call-${index}`;
    const path = `src/f${index}.ts`;
    messages.push(
      {
        role: "assistant",
        content: [
          { type: "text", text: `Reading ${path}.` },
          { type: "tool-call", toolCallId, toolName: "read", input: { path } },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId,
            toolName: "read",
            output: { type: "text", value: `// ${path}\n${"x".repeat(tokens * 4)}` },
          },
        ],
      },
    );
  }
  return messages;
}

/** `messages` as a session's, their ids their positions (as the stateless path names them). */
function appendTo(session: AgentSession, messages: ModelMessage[]): void {
  let position = 0;
  const generateId = () => String(position++);
  session.append(...fromModelMessages(messages, { sessionId: session.sessionId, generateId }));
}

/** What a `new AgentSession({ contextLimit })` holding `messages` makes of them. */
async function sessionCompaction(messages: ModelMessage[], contextLimit: number) {
  const session = new AgentSession({ contextLimit, archive: false });
  appendTo(session, messages);
  const report = await session.maybeCompact();
  return { compacted: report.compacted, messages: toModelMessages(session.messages) };
}

describe("the helpers' defaults are the session's", () => {
  it("at each utilisation, compactModelMessages and the session take the same decision and keep the same messages", async () => {
    // The session's messages hold no system prompt (it goes in the request's own field).
    const messages = toolLoop(12, 1_000, false);
    const estimate = 12 * 1_000;
    let compactedAt = 0;
    for (const utilisation of [0.3, 0.45, 0.55, 0.61, 0.7, 0.8, 0.9, 0.99]) {
      const contextLimit = Math.round(estimate / utilisation);
      const session = await sessionCompaction(messages, contextLimit);
      const stateless = await compactModelMessages(messages, { contextLimit });
      expect(stateless.compacted, `at ${utilisation}`).toBe(session.compacted);
      expect(stateless.messages, `at ${utilisation}`).toEqual(session.messages);
      if (session.compacted) compactedAt += 1;
    }
    // The comparison covered both decisions.
    expect(compactedAt).toBeGreaterThan(0);
    expect(compactedAt).toBeLessThan(8);
  });

  it("with an llmCompactor, runs the session's two stages and keeps the same messages", async () => {
    // Two turns: the summarizer folds the first, the masking keeps on in the second. The first
    // ends with a long answer, which masking cannot shrink: the summarizer has work to do.
    const loop = toolLoop(12, 1_000, false);
    const messages: ModelMessage[] = [
      ...loop.slice(0, 13),
      { role: "assistant", content: `Read six files. ${"detail ".repeat(1_600)}` },
      { role: "user", content: "Now read the other six." },
      ...loop.slice(13),
    ];
    const contextLimit = 4_000;
    const summarizer = () => new LLMCompactor(new MockLlmClient(), { keepRecentTurns: 1 });
    const session = new AgentSession({ contextLimit, archive: false, llmCompactor: summarizer() });
    appendTo(session, messages);
    const report = await session.maybeCompact();
    const stateless = await compactModelMessages(messages, {
      contextLimit,
      llmCompactor: summarizer(),
    });
    expect(report.results.map((step) => step.strategy)).toEqual(["threshold", "llm"]);
    const folded = report.results[1]!.result.turnsCompacted;
    expect(folded).toBeGreaterThanOrEqual(1);
    expect(stateless.compacted).toBe(true);
    expect(stateless.result.turnsCompacted).toBe(folded);
    expect(stateless.messages).toEqual(toModelMessages(session.messages));
  });

  it("compactionPrepareStep compacts its first step as the session would", async () => {
    const messages = toolLoop(12, 1_000, false);
    // 81% of the window: above the default's threshold (0.75).
    const contextLimit = Math.round(12_000 / 0.81);
    const session = await sessionCompaction(messages, contextLimit);
    const prepare = compactionPrepareStep({ contextLimit });
    const output = await prepare({ steps: [], stepNumber: 0, messages });
    expect(session.compacted).toBe(true);
    expect(output.messages).toEqual(session.messages);
  });

  it("never drops or edits a system message", async () => {
    const { messages } = await compactModelMessages(toolLoop(30), { contextLimit: 20_000 });
    expect(messages[0]).toBe(SYSTEM);
  });
});

describe("checked input", () => {
  it("refuses a contextUsed that is not a finite number of tokens, and summaries not strings, naming them", async () => {
    const messages = toolLoop(2);
    for (const contextUsed of [Number.NaN, -5, Number.POSITIVE_INFINITY, "9000"]) {
      const options = { contextLimit: 10_000, contextUsed } as never;
      const error = await compactModelMessages(messages, options).catch((caught) => caught);
      expect(ValidationError.isInstance(error), String(contextUsed)).toBe(true);
      expect((error as ValidationError).issues[0]!.path).toEqual(["contextUsed"]);
    }
    // A summary that is no string is refused by name, not met inside the compactor.
    for (const summaries of [new Map([["call_0", 5]]), new Map([[7, "read"]]), { call_0: "x" }]) {
      const options = { contextLimit: 10_000, summaries } as never;
      const error = await compactModelMessages(messages, options).catch((caught) => caught);
      expect(ValidationError.isInstance(error)).toBe(true);
      expect((error as ValidationError).issues[0]!.path).toEqual(["summaries"]);
    }
    expect(() => compactionPrepareStep({ contextLimit: 0 })).toThrow(/contextLimit/);
    expect(() => compactionPrepareStep({ contextLimit: 1000, typo: 1 } as never)).toThrow(/typo/);
  });

  it("does not trust a reported context far below the estimate (a gateway's 0)", async () => {
    const messages = toolLoop(22);
    const { compacted, contextUsed } = await compactModelMessages(messages, {
      contextLimit: 20_000,
      contextUsed: 0,
    });
    expect(compacted).toBe(true);
    expect(contextUsed).toBeGreaterThan(20_000);
  });

  it("keeps a loop whose model reports usage 0 under the window", async () => {
    const prompts: unknown[] = [];
    let step = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt }): Promise<LanguageModelV3GenerateResult> => {
        prompts.push(prompt);
        step += 1;
        const usage = {
          inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 0, text: 0, reasoning: undefined },
        };
        const call = {
          type: "tool-call" as const,
          toolCallId: `c${step}`,
          toolName: "read",
          input: JSON.stringify({ path: `f${step}` }),
        };
        return {
          content: step > 12 ? [{ type: "text", text: "done" }] : [call],
          finishReason: { unified: step > 12 ? "stop" : "tool-calls", raw: undefined },
          usage,
          warnings: [],
        };
      },
    });
    const read = tool({
      inputSchema: z.object({ path: z.string() }),
      execute: async () => "y".repeat(8_000),
    });
    await generateText({
      model,
      tools: { read },
      messages: toolLoop(8),
      allowSystemInMessages: true,
      stopWhen: stepCountIs(14),
      // Without the last resort: the compactor's decision alone must keep the window.
      prepareStep: compactionPrepareStep({ contextLimit: 20_000, trimOnOverflow: false }),
    });
    const sizes = prompts.map((prompt) => Math.ceil(JSON.stringify(prompt).length / 4));
    expect(sizes).toHaveLength(13);
    expect(Math.max(...sizes)).toBeLessThan(20_000);
  });
});

describe("an app's compactor, as the session runs it", () => {
  const due = { isAsync: false, shouldCompact: () => true } as const;

  it("refuses its output when it drops the latest request (compactor_error), nothing applied", async () => {
    const compactor: Compactor = {
      ...due,
      compact: (conversation) => ({
        conversation: conversation.slice(0, 1),
        result: emptyCompactionResult(),
      }),
    };
    // As the session's run: the failure is reported, not thrown, and nothing of it applies.
    const messages = toolLoop(3);
    const {
      error,
      compacted,
      messages: sent,
    } = await compactModelMessages(messages, {
      contextLimit: 50_000,
      compactor,
    });
    expect(CompactionError.isInstance(error)).toBe(true);
    expect(error?.code).toBe("compactor_error");
    expect(String(error?.cause)).toMatch(/dropped the latest request/);
    expect(compacted).toBe(false);
    expect(sent).toBe(messages);
  });

  it("ends a hanging one with the caller's signal (aborted)", async () => {
    const compactor: AsyncCompactor = {
      ...due,
      isAsync: true,
      compact: () => {
        throw new Error("not used");
      },
      compactAsync: () => new Promise(() => {}),
    };
    const controller = new AbortController();
    const pending = compactModelMessages(toolLoop(3), {
      contextLimit: 50_000,
      compactor,
      signal: controller.signal,
    });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: "aborted" });
  });
});

describe("lossless round trips", () => {
  it("gives a Node Buffer back as a Buffer, a Uint8Array as a Uint8Array", () => {
    const bytes = Uint8Array.from([137, 80, 78, 71]);
    const messages: ModelMessage[] = [
      {
        role: "user",
        content: [
          { type: "image", image: Buffer.from(bytes), mediaType: "image/png" },
          { type: "image", image: bytes, mediaType: "image/png" },
          { type: "file", data: Buffer.from("%PDF"), mediaType: "application/pdf" },
        ],
      },
    ];
    const back = toModelMessages(fromModelMessages(messages));
    const [buffer, plain, file] = back[0]!.content as { image?: unknown; data?: unknown }[];
    expect(Buffer.isBuffer(buffer!.image)).toBe(true);
    expect(Buffer.isBuffer(plain!.image)).toBe(false);
    expect(plain!.image).toBeInstanceOf(Uint8Array);
    expect(Buffer.isBuffer(file!.data)).toBe(true);
    expect(back).toEqual(messages);
  });
});

describe("recall over a stateless archive", () => {
  it("archives what compaction replaced under handles named after it; the recall tool answers", async () => {
    const archive = new MemoryArchive();
    const messages = toolLoop(12);
    const options = { contextLimit: Math.round(12_000 / 0.81), archive };
    const first = await compactModelMessages(messages, options);
    const again = await compactModelMessages(messages, options);
    // The same compaction made again: the same placeholders, the same handles.
    expect(again.messages).toEqual(first.messages);
    const handles = [...JSON.stringify(first.messages).matchAll(/\[recall (r\d+-[0-9a-f]{4})\]/g)];
    expect(handles.length).toBeGreaterThan(0);
    const recall = recallTool({ archive });
    const execute = recall.execute!;
    const context = { toolCallId: "t", messages: [] };
    const texts = await Promise.all(
      handles.map(([, handle]) => execute({ handle: handle! }, context) as Promise<string>),
    );
    expect(texts.join("\n")).toContain("// src/f1.ts");
    await expect(Promise.resolve(execute({ handle: "r1-0000" }, context))).rejects.toThrow(
      /another session/,
    );
  });

  it("clamps a result too large for the window as the session does, the original recallable", async () => {
    const archive = new MemoryArchive();
    const messages = toolLoop(1, 9_000);
    const { messages: sent, compacted } = await compactModelMessages(messages, {
      contextLimit: 20_000,
      archive,
    });
    expect(compacted).toBe(true);
    const text = JSON.stringify(sent);
    expect(text).toContain("characters cut to fit the context window");
    const [, handle] = /\[recall (r\d+-[0-9a-f]{4})\]/.exec(text)!;
    // The answer comes in pages (4,000 tokens without a window), each but the last ending with
    // the call for the next: the pages, footers aside, are the original.
    const execute = recallTool({ archive }).execute!;
    let original = "";
    for (let page = 1; page <= 20; page += 1) {
      const answer = String(
        await execute({ handle: handle!, page }, { toolCallId: "t", messages: [] }),
      );
      const footer = /\n\[recall r\d+-[0-9a-f]{4}: page \d+ of \d+\.[^\]]*\]$/.exec(answer);
      original += footer === null ? answer : answer.slice(0, footer.index);
      if (footer === null || footer[0].includes("This is the last page.")) break;
    }
    expect(original.length).toBeGreaterThan(36_000);
    expect(original).toContain(`// src/f1.ts\n${"x".repeat(36_000)}`);
  });
});
