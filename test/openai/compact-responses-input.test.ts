import OpenAI from "openai";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ValidationError } from "../../src/core/errors.js";
import { compactResponsesInput } from "../../src/openai/index.js";
import { MemoryArchive } from "../../src/session/archive.js";
import type { CompactMessagesOptions } from "../../src/session/stateless-options.js";
import {
  type Item,
  ResponsesApiServer,
  reasonedAnswer,
  roughTokens,
} from "../support/openai-responses-server.js";

// `compactResponsesInput` on a stateless server's path: the whole Responses input compacted
// before each request and sent with `store: false` through the real openai SDK to the loopback
// Responses API, which refuses what the API refuses (a call without its output, reasoning sent
// alone or missing before the item it produced, encrypted content altered) and, here, any
// input larger than the window.

const MODEL = "gpt-6.1-sol";
const SMALL_WINDOW = 8_000;
/** Requests in the loop: each but the last answered with reasoning and a call. */
const STEPS = 44;

const user = (text: string): ResponseInputItem => ({
  type: "message",
  role: "user",
  content: [{ type: "input_text", text }],
});

/** The output of the call of request `step`: about 2.5 KB, naming its file. */
const fileText = (step: number) =>
  `// src/f${step}.ts\n${Array.from({ length: 60 }, (_, line) => `export const v${step}_${line} = ${line * step}; // padding`).join("\n")}`;

/** A text as it appears inside JSON, to look for in a stringified input. */
const inJson = (text: string) => JSON.stringify(text).slice(1, -1);

/** The index of the first reasoning item not followed by the call or answer it produced, or -1. */
function loneReasoning(input: readonly Item[]): number {
  return input.findIndex((item, index) => {
    if (item["type"] !== "reasoning") return false;
    const next = input[index + 1];
    return !(
      next?.["type"] === "function_call" ||
      (next?.["type"] === "message" && next["role"] === "assistant")
    );
  });
}

/** What `run` rejected with, checked to be a `ValidationError`. */
async function validationError(run: Promise<unknown>): Promise<ValidationError> {
  const error = await run.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return error as ValidationError;
}

const paths = (error: ValidationError) => error.issues.map((issue) => issue.path.join("."));

describe("compactResponsesInput through the openai SDK and the loopback Responses API", () => {
  let server: ResponsesApiServer;
  let client: OpenAI;
  beforeAll(async () => {
    server = await ResponsesApiServer.start(() => ({ output: [] }));
    client = new OpenAI({ baseURL: server.url, apiKey: "x", maxRetries: 0 });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
    server.refusals.length = 0;
    // Larger inputs are refused with context_length_exceeded.
    server.contextWindow = SMALL_WINDOW;
    // Each request is answered with reasoning and a call to read a file; the last with "Done.".
    server.script = (_request, ids) => {
      const step = server.requests.length;
      if (step >= STEPS) return { output: reasonedAnswer(ids, "Done.") };
      const id = ids("rs");
      return {
        output: [
          { type: "reasoning", id, summary: [], encrypted_content: server.encrypt(id) },
          {
            type: "function_call",
            id: ids("fc"),
            call_id: ids("call"),
            name: "read_file",
            arguments: JSON.stringify({ path: `src/f${step}.ts` }),
            status: "completed",
          },
        ],
      };
    };
  });

  /** The stateless tool loop: the whole history compacted before each request, sent, extended. */
  async function toolLoop(options: Omit<CompactMessagesOptions, "contextLimit"> = {}) {
    let history: ResponseInputItem[] = [user("Read every file of src/ and review it.")];
    let uncompacted = roughTokens(history);
    const runs: { compacted: boolean; messages: ResponseInputItem[] }[] = [];
    for (let request = 1; request <= STEPS; request += 1) {
      const { messages, compacted } = await compactResponsesInput(history, {
        contextLimit: SMALL_WINDOW,
        ...options,
      });
      runs.push({ compacted, messages });
      const response = await client.responses.create({
        model: MODEL,
        input: messages,
        store: false,
        include: ["reasoning.encrypted_content"],
      });
      const outputs: ResponseInputItem[] = response.output.flatMap((item) =>
        item.type === "function_call"
          ? [{ type: "function_call_output", call_id: item.call_id, output: fileText(request) }]
          : [],
      );
      uncompacted += roughTokens(response.output) + roughTokens(outputs);
      history = [...messages, ...(response.output as ResponseInputItem[]), ...outputs];
      if (outputs.length === 0) return { runs, response, uncompacted };
    }
    throw new Error("the model never answered");
  }

  it("keeps a 44-request stateless tool loop inside a small window, every request accepted", async () => {
    const { runs, response, uncompacted } = await toolLoop();
    expect(server.refusals).toEqual([]);
    expect(response.output_text).toBe("Done.");
    const sent = server.requests.map((request) => request.body["input"] as Item[]);
    expect(sent).toHaveLength(STEPS);
    // Uncompacted, the conversation would have taken several windows.
    expect(uncompacted).toBeGreaterThan(3 * SMALL_WINDOW);
    expect(runs[0]!.compacted).toBe(false);
    expect(runs.filter((run) => run.compacted).length).toBeGreaterThan(0);
    for (const [index, input] of sent.entries()) {
      expect(roughTokens(input), `request ${index + 1}`).toBeLessThanOrEqual(SMALL_WINDOW);
      expect(loneReasoning(input), `request ${index + 1}`).toBe(-1);
    }
    // Reasoning was sent, before its call, so the check above was not vacuous.
    const last = sent.at(-1)!;
    expect(last.filter((item) => item["type"] === "reasoning").length).toBeGreaterThan(2);
    // The task and the latest output reached the model whole.
    const lastText = JSON.stringify(last);
    expect(lastText).toContain("Read every file of src/ and review it.");
    expect(lastText).toContain(inJson(fileText(STEPS - 1)));
  });

  it("resolves to the input array itself when nothing needs compacting", async () => {
    const input = [user("Hi."), user("Which files are in src/?")];
    const result = await compactResponsesInput(input, { contextLimit: 100_000 });
    expect(result.messages).toBe(input);
    expect(result.compacted).toBe(false);
    expect(result.contextUsed).toBeGreaterThan(0);
    const response = await client.responses.create({
      model: MODEL,
      input: result.messages,
      store: false,
    });
    expect(response.status).toBe("completed");
    expect(server.refusals).toEqual([]);
  });

  it("rejects bad input and options with a ValidationError naming the field, the input untouched", async () => {
    const call = { type: "function_call", call_id: "call_1", name: "read_file", arguments: "{}" };
    const input: unknown[] = [
      user("Read src/f1.ts."),
      call,
      { type: "function_call_output", call_id: "call_1", output: 42 },
    ];
    const good: unknown[] = [
      user("Read src/f1.ts."),
      call,
      { type: "function_call_output", call_id: "call_1", output: "ok" },
    ];
    const before = structuredClone([input, good]);
    const notArray = await validationError(
      compactResponsesInput("hello" as unknown as unknown[], { contextLimit: 8_000 }),
    );
    expect(notArray.message).toMatch(/Responses input.*must be an array/);
    const item = await validationError(compactResponsesInput(input, { contextLimit: 8_000 }));
    expect(paths(item)).toEqual([expect.stringMatching(/^2\.output/)]);
    for (const [options, field] of [
      [{ contextLimit: 8_000, contextUsed: Number.NaN }, "contextUsed"],
      [{ contextLimit: -1 }, "contextLimit"],
      [{ contextLimit: 8_000, maxBlockShare: 2 }, "maxBlockShare"],
    ] as const) {
      const error = await validationError(compactResponsesInput(good, options));
      expect(paths(error)).toEqual([field]);
      expect(error.message).toContain("compactResponsesInput options");
    }
    expect([input, good]).toEqual(before);
  });

  it("keeps what compaction replaced in the archive, under the handle its placeholder names", async () => {
    const archive = new MemoryArchive();
    const { runs } = await toolLoop({ archive, sessionId: "review-1" });
    expect(server.refusals).toEqual([]);
    const compacted = runs.find((run) => run.compacted);
    expect(compacted).toBeDefined();
    const text = JSON.stringify(compacted!.messages);
    const handles = [...text.matchAll(/\[recall (r\d+-[0-9a-f]{4})\]/g)].map(
      ([, handle]) => handle!,
    );
    expect(handles.length).toBeGreaterThan(0);
    const records = handles.map((handle) => archive.get("review-1", handle));
    for (const record of records) expect(record).toBeDefined();
    // The first file read is gone from the input, and kept whole under one of its handles.
    const first = inJson(fileText(1));
    expect(text).not.toContain(first);
    expect(JSON.stringify(records)).toContain(first);
    // The records are the conversation's: another id finds none of them.
    expect(archive.get("stateless", handles[0]!)).toBeUndefined();
  });
});
