import type {
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { generateText, type ModelMessage, stepCountIs, streamText, tool } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { LLMCompactor } from "../compactors/llm-compactor.js";
import { TRIM_NOTICE } from "../compactors/overflow-trim.js";
import { REDACTION_NOTICE } from "../compactors/threshold-compactor.js";
import { CompactionError } from "../core/errors.js";
import { SUMMARY_PREFIX } from "../core/summary-format.js";
import { validateConversation } from "../core/validate-conversation.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { compactModelMessages } from "./compact-model-messages.js";
import { AiSdkLlmClient } from "./llm-client.js";
import { fromModelMessages } from "./model-messages.js";
import {
  compactionPrepareStep,
  type PrepareStepCompaction,
  type PrepareStepInput,
  type PrepareStepOutput,
} from "./prepare-step.js";

type Prompt = LanguageModelV3CallOptions["prompt"];

/** What the provider would refuse in a request: unanswered or orphan tool calls, a bad start. */
function promptProblems(prompt: Prompt): string[] {
  const problems: string[] = [];
  const first = prompt.find((message) => message.role !== "system");
  if (first?.role !== "user") problems.push("first message is not from the user");
  prompt.forEach((message, index) => {
    if (message.role === "assistant") {
      const calls = message.content.filter((part) => part.type === "tool-call");
      const next = prompt[index + 1];
      const answered = new Set(
        next?.role === "tool"
          ? next.content.flatMap((part) => (part.type === "tool-result" ? [part.toolCallId] : []))
          : [],
      );
      for (const call of calls)
        if (!answered.has(call.toolCallId))
          problems.push(`${index}: ${call.toolCallId} unanswered`);
    }
    if (message.role === "tool") {
      const previous = prompt[index - 1];
      const calls = new Set(
        previous?.role === "assistant"
          ? previous.content.flatMap((part) => (part.type === "tool-call" ? [part.toolCallId] : []))
          : [],
      );
      for (const part of message.content)
        if (part.type === "tool-result" && !calls.has(part.toolCallId))
          problems.push(`${index}: orphan ${part.toolCallId}`);
    }
  });
  return problems;
}

const size = (prompt: Prompt) => Math.ceil(JSON.stringify(prompt).length / 4);

/** What a compaction by the session's default compactor leaves: masked results or a trim notice. */
const COMPACTED = new RegExp(
  [REDACTION_NOTICE, TRIM_NOTICE].map((text) => text.replace(/[[\]]/g, "\\$&")).join("|"),
);

/** A model that calls `read` twice a step for `toolSteps` steps, then answers. */
function scriptedAgent(toolSteps: number): MockLanguageModelV3 {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }): Promise<LanguageModelV3GenerateResult> => {
      step += 1;
      const input = size(prompt);
      const usage = {
        inputTokens: {
          total: input,
          noCache: input - Math.floor(input / 2),
          cacheRead: Math.floor(input / 2),
          cacheWrite: 0,
        },
        outputTokens: { total: 30, text: 30, reasoning: undefined },
      };
      if (step > toolSteps) {
        return {
          content: [{ type: "text", text: "All files read." }],
          finishReason: { unified: "stop", raw: "stop" },
          usage,
          warnings: [],
        };
      }
      const call = (n: number) => ({
        type: "tool-call" as const,
        toolCallId: `call-${step}-${n}`,
        toolName: "read",
        input: JSON.stringify({ path: `src/file-${step}-${n}.ts` }),
      });
      return {
        content: [{ type: "text", text: `Reading batch ${step}.` }, call(1), call(2)],
        finishReason: { unified: "tool-calls", raw: "tool_use" },
        usage,
        warnings: [],
      };
    },
  });
}

const read = tool({
  description: "Reads a file",
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => `// ${path}\n${"export const value = 42;\n".repeat(160)}`,
});

/** The prepareStep, with every step's messages checked against the AI SDK's rules. */
function checked(prepare: (input: PrepareStepInput) => Promise<PrepareStepOutput>) {
  return async (input: PrepareStepInput): Promise<PrepareStepOutput> => {
    const output = await prepare(input);
    const sent = fromModelMessages(output.messages ?? input.messages);
    expect(validateConversation(sent, { provider: "ai-sdk" })).toEqual([]);
    return output;
  };
}

const start: ModelMessage[] = [
  { role: "system", content: "You are a careful coding agent." },
  { role: "user", content: "Read every file under src/ and tell me what they export." },
];

describe("compactionPrepareStep through generateText", () => {
  it("compacts mid-loop; every request stays valid and append-only between compactions", async () => {
    // A window where the default's kept part (8 tool uses, 15%) is small beside its target
    // (25%): masking the older results gets there, so they stay, masked.
    const model = scriptedAgent(24);
    const compactions: PrepareStepCompaction[] = [];
    const result = await generateText({
      model,
      tools: { read },
      messages: start,
      stopWhen: stepCountIs(30),
      allowSystemInMessages: true,
      prepareStep: checked(
        compactionPrepareStep({
          contextLimit: 50_000,
          onCompaction: (event) => compactions.push(event),
        }),
      ),
    });
    expect(result.text).toBe("All files read.");
    expect(result.steps).toHaveLength(25);
    const prompts = model.doGenerateCalls.map((call) => call.prompt);
    for (const prompt of prompts) expect(promptProblems(prompt)).toEqual([]);
    expect(compactions.length).toBeGreaterThan(0);
    expect(compactions[0]!.stepNumber).toBeGreaterThan(1);
    // Masked results went out; the window held; the request the compaction shaped is smaller.
    const last = JSON.stringify(prompts.at(-1));
    expect(last).toContain(REDACTION_NOTICE);
    expect(Math.max(...prompts.map(size))).toBeLessThan(50_000);
    const compactedAt = new Set(compactions.map((event) => event.stepNumber));
    for (let step = 1; step < prompts.length; step += 1) {
      if (compactedAt.has(step)) continue;
      const before = prompts[step - 1]!;
      expect(prompts[step]!.slice(0, before.length)).toEqual(before);
    }
  });

  it("takes the loop's signal as an option: ai@6 passes prepareStep none (review 55b #4)", async () => {
    const controller = new AbortController();
    const errors: unknown[] = [];
    const prepareStep = compactionPrepareStep({
      contextLimit: 4_000,
      llmCompactor: new LLMCompactor(new MockLlmClient().hang(), { keepRecentTurns: 1 }),
      signal: controller.signal,
      onError: (error) => errors.push(error),
    });
    const messages: ModelMessage[] = [];
    for (let turn = 0; turn < 6; turn += 1)
      messages.push(
        { role: "user", content: `q${turn} ${"word ".repeat(300)}` },
        { role: "assistant", content: `a${turn} ${"word ".repeat(300)}` },
      );
    const step = prepareStep({ steps: [], stepNumber: 0, messages });
    controller.abort();
    await step;
    // Without the signal the summary ran to its timeout (a minute).
    expect(errors.map((error) => (error as CompactionError).code)).toEqual(["aborted"]);
    expect(() => compactionPrepareStep({ contextLimit: 4_000, signal: "stop" as never })).toThrow(
      /signal: must be an AbortSignal/,
    );
  });

  it("AiSdkLlmClient refuses a summary cut off or calling a tool: its text is no summary", async () => {
    for (const unified of ["length", "tool-calls", "content-filter"] as const) {
      const summarizer = new MockLanguageModelV3({
        doGenerate: {
          content: [{ type: "text", text: "Read files 1-4; ea" }],
          finishReason: { unified, raw: unified },
          usage: {
            inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 10, text: 10, reasoning: undefined },
          },
          warnings: [],
        },
      });
      await expect(
        new AiSdkLlmClient({ model: summarizer }).complete({ prompt: "Summarize" }),
      ).rejects.toThrow(`stopped with "${unified}"`);
    }
  });

  it("summarizes with an AiSdkLlmClient mid-loop and reports a failing summarizer", async () => {
    const summarizer = new MockLanguageModelV3({
      doGenerate: {
        content: [{ type: "text", text: "Read files 1-4; each exports value = 42." }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: {
          inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 10, text: 10, reasoning: undefined },
        },
        warnings: [],
      },
    });
    const compactor = new LLMCompactor(new AiSdkLlmClient({ model: summarizer }), {
      keepRecentTurns: 1,
    });
    const model = scriptedAgent(6);
    const conversation: ModelMessage[] = [{ role: "user", content: "First, list the repo." }];
    for (const dir of ["src", "test", "docs"]) {
      conversation.push(
        {
          role: "assistant",
          content: [
            { type: "tool-call", toolCallId: `ls-${dir}`, toolName: "read", input: { path: dir } },
          ],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: `ls-${dir}`,
              toolName: "read",
              output: { type: "text", value: `${dir}/a.ts\n`.repeat(400) },
            },
          ],
        },
      );
    }
    conversation.push({ role: "assistant", content: "It holds src/, test/ and docs/." }, ...start);
    const result = await generateText({
      model,
      tools: { read },
      messages: conversation,
      stopWhen: stepCountIs(10),
      allowSystemInMessages: true,
      prepareStep: compactionPrepareStep({ contextLimit: 8_000, compactor }),
    });
    expect(result.text).toBe("All files read.");
    const prompts = model.doGenerateCalls.map((call) => call.prompt);
    for (const prompt of prompts) expect(promptProblems(prompt)).toEqual([]);
    expect(summarizer.doGenerateCalls.length).toBeGreaterThan(0);
    expect(JSON.stringify(prompts.at(-1))).toContain(SUMMARY_PREFIX);

    const failing = new LLMCompactor(
      new AiSdkLlmClient({
        model: new MockLanguageModelV3({
          doGenerate: async () => {
            throw new Error("overloaded");
          },
        }),
        maxRetries: 0,
      }),
      { keepRecentTurns: 1 },
    );
    const errors: unknown[] = [];
    const again = await generateText({
      model: scriptedAgent(3),
      tools: { read },
      messages: conversation,
      stopWhen: stepCountIs(10),
      allowSystemInMessages: true,
      prepareStep: compactionPrepareStep({
        contextLimit: 3_000,
        compactor: failing,
        onError: (error) => errors.push(error),
      }),
    });
    expect(again.text).toBe("All files read.");
    expect(errors.length).toBeGreaterThan(0);
    expect(CompactionError.isInstance(errors[0])).toBe(true);
  });
});

describe("compactionPrepareStep through streamText", () => {
  it("compacts between streamed steps, every request valid", async () => {
    let step = 0;
    const model = new MockLanguageModelV3({
      doStream: async ({ prompt }) => {
        step += 1;
        const input = size(prompt);
        const usage = {
          inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 20, text: 20, reasoning: undefined },
        };
        const done = step > 8;
        const parts: LanguageModelV3StreamPart[] = [
          { type: "stream-start", warnings: [] },
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: done ? "All files read." : `Reading ${step}.` },
          { type: "text-end", id: "t" },
          ...(done
            ? []
            : [
                {
                  type: "tool-call" as const,
                  toolCallId: `call-${step}`,
                  toolName: "read",
                  input: JSON.stringify({ path: `f${step}.ts` }),
                },
              ]),
          {
            type: "finish",
            finishReason: { unified: done ? "stop" : "tool-calls", raw: undefined },
            usage,
          },
        ];
        return { stream: convertArrayToReadableStream(parts) };
      },
    });
    const compactions: PrepareStepCompaction[] = [];
    const result = streamText({
      model,
      tools: { read },
      messages: start,
      stopWhen: stepCountIs(12),
      allowSystemInMessages: true,
      prepareStep: checked(
        compactionPrepareStep({
          contextLimit: 6_000,
          onCompaction: (event) => compactions.push(event),
        }),
      ),
    });
    expect(await result.text).toContain("All files read.");
    const prompts = model.doStreamCalls.map((call) => call.prompt);
    expect(prompts).toHaveLength(9);
    for (const prompt of prompts) expect(promptProblems(prompt)).toEqual([]);
    expect(compactions.length).toBeGreaterThan(0);
    // The session's default compactor: old results masked, the oldest dropped to its target.
    expect(JSON.stringify(prompts.at(-1))).toMatch(COMPACTED);
  });
});

describe("compactModelMessages", () => {
  it("hands back the same array when under the threshold, and unchanged messages as they were", async () => {
    const under = await compactModelMessages(start, { contextLimit: 100_000 });
    expect(under.messages).toBe(start);
    expect(under.compacted).toBe(false);
    const messages: ModelMessage[] = [...start];
    for (let index = 0; index < 30; index += 1) {
      messages.push({
        role: "assistant",
        content: [
          {
            type: "tool-call",
            toolCallId: `c${index}`,
            toolName: "read",
            input: { path: `f${index}` },
          },
        ],
      });
      messages.push({
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: `c${index}`,
            toolName: "read",
            output: { type: "text", value: "x".repeat(4000) },
          },
        ],
      });
    }
    const over = await compactModelMessages(messages, { contextLimit: 20_000 });
    expect(over.compacted).toBe(true);
    expect(over.messages[0]).toBe(start[0]);
    expect(over.messages.at(-1)).toBe(messages.at(-1));
    expect(JSON.stringify(over.messages)).toMatch(COMPACTED);
    expect(JSON.stringify(over.messages).length).toBeLessThan(JSON.stringify(messages).length / 2);
    await expect(compactModelMessages(messages, { contextLimit: 0 })).rejects.toThrow(
      /contextLimit/,
    );
  });
});
