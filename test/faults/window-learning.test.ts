import type { ToolUseBlock } from "@anthropic-ai/sdk/resources/messages";
import { GoogleGenAI } from "@google/genai";
import { describe, expect, it } from "vitest";
import {
  appendAnthropicResponse,
  isAnthropicContextOverflow,
  toAnthropicMessages,
} from "../../src/anthropic/index.js";
import {
  appendGeminiResponse,
  isGeminiContextOverflow,
  toGeminiContents,
} from "../../src/gemini/index.js";
import { AgentSession, type CompactionEvent, withOverflowRecovery } from "../../src/index.js";
import { contextOverflowOf } from "../../src/models/index.js";
import { AnthropicStandIn, type StandInRequest } from "../../src/testing/index.js";
import { GeminiApiServer } from "../support/gemini-api-server.js";

const model = "claude-sonnet-5-5";

/** The model reads one file per request, each result about 1,000 tokens. */
function reader() {
  let read = 0;
  return (_request: StandInRequest) => {
    read += 1;
    return {
      text: `Reading file ${read}.`,
      toolCalls: [{ name: "read_file", input: { path: `src/f${read}.ts` } }],
    };
  };
}

/** The loop of docs/production.md with `withOverflowRecovery`, `requests` requests; the refusals it met. */
async function runLoop(session: AgentSession, client: AnthropicStandIn, requests: number) {
  let refusals = 0;
  session.addUserText("Read every file.");
  for (let request = 0; request < requests; request += 1) {
    await session.maybeCompact();
    const response = await withOverflowRecovery(
      session,
      (attempt) => {
        if (attempt > 0) refusals += 1;
        return client.messages.create({
          model,
          max_tokens: 1024,
          messages: toAnthropicMessages(session.messages),
        });
      },
      { isOverflow: isAnthropicContextOverflow },
    );
    appendAnthropicResponse(session, response);
    const calls = response.content.filter(
      (block): block is ToolUseBlock => block.type === "tool_use",
    );
    session.addToolResults(
      calls.map((call) => ({
        type: "tool_result",
        tool_use_id: call.id,
        content: `// ${String((call.input as { path: string }).path)}\n${"const x = 1;\n".repeat(330)}`,
      })),
    );
  }
  return refusals;
}

describe("overflow recovery learns the window a refusal names", () => {
  it("is refused once, then compacts to the named window: no refusal again", async () => {
    const client = new AnthropicStandIn({ contextWindow: 12_000, defaultReply: reader() });
    const events: CompactionEvent[] = [];
    // Configured for a window the model does not have.
    const session = new AgentSession({ contextLimit: 40_000 });
    session.on((event) => events.push(event));
    const refusals = await runLoop(session, client, 60);
    expect(refusals).toBe(1);
    expect(session.contextLimit).toBe(12_000);
    const warnings = events.filter((event) => event.type === "context_window_warning");
    expect(warnings).toEqual([
      {
        type: "context_window_warning",
        problem: expect.objectContaining({
          kind: "refused_above_window",
          modelWindow: 12_000,
          configuredLimit: 40_000,
        }),
      },
    ]);
    // The learned window is the session's: a snapshot carries it.
    expect(AgentSession.fromJSON(session.toJSON()).contextLimit).toBe(12_000);
  });

  it("never raises the window, and refuses a bad refusal naming the field", () => {
    const session = new AgentSession({ contextLimit: 10_000 });
    session.recordContextOverflow({ windowTokens: 50_000 });
    expect(session.contextLimit).toBe(10_000);
    expect(() => session.recordContextOverflow({ windowTokens: 0 })).toThrow(/windowTokens/);
    expect(() =>
      session.recordContextOverflow({ windowTokens: 5_000, requestTokens: -1 } as never),
    ).toThrow(/requestTokens/);
    expect(session.contextLimit).toBe(10_000);
  });
});

describe("contextOverflowOf", () => {
  const apiError = (message: string, status = 400) =>
    Object.assign(new Error(`${status} ${message}`), { status, error: { error: { message } } });

  it("reads the window each provider's wording names", () => {
    expect(
      contextOverflowOf(apiError("prompt is too long: 210000 tokens > 200000 maximum")),
    ).toEqual({ windowTokens: 200_000, requestTokens: 210_000 });
    expect(
      contextOverflowOf(
        apiError(
          "input length and `max_tokens` exceed context limit: 190000 + 20000 > 200000, decrease input length or `max_tokens` and try again",
        ),
      ),
    ).toEqual({ windowTokens: 180_000, requestTokens: 190_000 });
    expect(
      contextOverflowOf(
        apiError(
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
        ),
      ),
    ).toEqual({ windowTokens: 128_000, requestTokens: 130_512 });
    expect(
      contextOverflowOf(
        apiError("Your input exceeds the context window of this model (130000 > 128000 tokens)."),
      ),
    ).toEqual({ windowTokens: 128_000, requestTokens: 130_000 });
    expect(
      contextOverflowOf(
        apiError(
          "The input token count (12308) exceeds the maximum number of tokens allowed (8000).",
        ),
      ),
    ).toEqual({ windowTokens: 8_000, requestTokens: 12_308 });
  });

  it("recovers from Gemini's refusal through the real @google/genai: the window learned (review 55a #1)", async () => {
    const server = await GeminiApiServer.start(() => ({ parts: [{ text: "ok" }] }), {
      contextWindow: 8_000,
    });
    try {
      const ai = new GoogleGenAI({
        apiKey: "test",
        httpOptions: { baseUrl: server.url, retryOptions: { attempts: 1 } },
      });
      for (const options of [{}, { isOverflow: isGeminiContextOverflow }]) {
        const session = new AgentSession({ contextLimit: 200_000 });
        session.addUserText("Find why the build fails.");
        for (let call = 0; call < 6; call += 1) {
          session.addAssistant([{ type: "tool_use", id: `c${call}`, name: "read", input: {} }]);
          session.addToolResults([
            { type: "tool_result", toolUseId: `c${call}`, content: "x".repeat(8_000) },
          ]);
        }
        session.addAssistant([{ type: "text", text: "Read them." }]);
        session.addUserText("Go on.");
        const response = await withOverflowRecovery(
          session,
          () =>
            ai.models.generateContent({
              model: "gemini-2.5-flash",
              contents: toGeminiContents(session.messages),
            }),
          options,
        );
        appendGeminiResponse(session, response);
        expect(session.contextLimit).toBe(8_000);
      }
    } finally {
      await server.close();
    }
  });

  it("finds nothing where no window is named, and stays linear on hostile text", () => {
    expect(
      contextOverflowOf(apiError("Your input exceeds the context window of this model.")),
    ).toBeUndefined();
    expect(contextOverflowOf(new Error("socket hang up"))).toBeUndefined();
    expect(contextOverflowOf(null)).toBeUndefined();
    const hostile = apiError(`${"9".repeat(100_000)} tokens > ${"9".repeat(100_000)} maximum`);
    expect(contextOverflowOf(hostile)).toBeUndefined();
  });
});
