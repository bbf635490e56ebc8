import { DiagLogLevel, diag } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { FakeSession, memoryTracing } from "../../test/support/otel-tracing.js";
import { ValidationError } from "../core/errors.js";
import { MockLlmClient } from "../testing/mock-llm-client.js";
import { GEN_AI_ATTRIBUTES as G } from "./attributes.js";
import { traceCompactions } from "./trace-compactions.js";
import { traceLlmClient } from "./trace-llm-client.js";

describe("traceLlmClient", () => {
  it("passes the request and the reply through unchanged", async () => {
    const { tracer, spans } = memoryTracing();
    const inner = new MockLlmClient().reply("Goal: fix the build.");
    const client = traceLlmClient(inner, { model: "gpt-5.6-sol", tracer });
    const reply = await client.complete({ prompt: "Summarize.", system: "Be brief." });
    expect(reply).toBe("Goal: fix the build.");
    expect(inner.lastRequest).toMatchObject({ prompt: "Summarize.", system: "Be brief." });
    expect(spans()[0]?.attributes).toEqual({
      [G.OPERATION_NAME]: "chat",
      [G.REQUEST_MODEL]: "gpt-5.6-sol",
      // Not given: inferred from the model, which the library knows.
      [G.PROVIDER_NAME]: "openai",
    });
    expect(spans()[0]?.kind).toBe(2); // SpanKind.CLIENT
  });

  it("marks a failed request as an error span with error.type and rethrows the same error", async () => {
    const { tracer, spans } = memoryTracing();
    const failure = new TypeError("overloaded");
    const client = traceLlmClient(new MockLlmClient().fail(failure), { model: "m", tracer });
    const logged: unknown[] = [];
    diag.setLogger(
      {
        error: (message) => logged.push(message),
        warn: () => {},
        info() {},
        debug() {},
        verbose() {},
      },
      DiagLogLevel.WARN,
    );
    try {
      await expect(client.complete({ prompt: "p" })).rejects.toBe(failure);
    } finally {
      diag.disable();
    }
    // Ended once (review 55g #2: twice logged "You can only call end() on a span once").
    expect(logged).toEqual([]);
    expect(spans()).toHaveLength(1);
    expect(spans()[0]?.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(spans()[0]?.attributes[G.ERROR_TYPE]).toBe("TypeError");
    expect(spans()[0]?.attributes[G.USAGE_INPUT_TOKENS]).toBeUndefined();
  });

  it("reads no usage from a reply that carries none or a malformed one", async () => {
    const { tracer, spans } = memoryTracing();
    const replies: unknown[] = [
      "text",
      { text: "t", usage: { inputTokens: -1, outputTokens: 2 } },
      { usage: null },
    ];
    for (const reply of replies) {
      const client = traceLlmClient(
        { complete: async () => reply as string },
        { model: "m", tracer },
      );
      await client.complete({ prompt: "p" });
    }
    expect(spans().map((span) => span.attributes[G.USAGE_OUTPUT_TOKENS])).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("marks a reply whose usage the compactor refuses as an error span (review 55c #11)", async () => {
    const { tracer, spans } = memoryTracing();
    const replies: unknown[] = [
      { text: "t", usage: { inputTokens: Number.NaN, outputTokens: 2 } },
      { text: "t", usage: { inputTokens: -1 } },
      { text: "t", usage: { inputTokens: 3, outputTokens: 2 } },
      "text",
    ];
    for (const reply of replies) {
      const client = traceLlmClient(
        { complete: async () => reply as string },
        { model: "m", tracer },
      );
      await client.complete({ prompt: "p" });
    }
    expect(spans().map((span) => span.status.code)).toEqual([2, 2, 0, 0]);
    expect(spans().map((span) => span.attributes[G.ERROR_TYPE])).toEqual([
      "llm_error",
      "llm_error",
      undefined,
      undefined,
    ]);
  });

  it("keeps acceptsConversation, so a cache-reading client still gets the conversation", () => {
    const cached = traceLlmClient(new MockLlmClient({ acceptsConversation: true }), { model: "m" });
    expect(cached.acceptsConversation).toBe(true);
    expect(traceLlmClient(new MockLlmClient(), { model: "m" }).acceptsConversation).toBeUndefined();
  });

  it("refuses a missing model or client, naming the field", () => {
    expect(() => traceLlmClient(new MockLlmClient(), { model: " " })).toThrow(/model/);
    expect(() => traceLlmClient({} as never, { model: "m" })).toThrow(ValidationError);
    expect(() => traceLlmClient(new MockLlmClient(), { model: "m", provider: 3 as never })).toThrow(
      /provider/,
    );
  });

  describe("a request that ignores its abort signal (review 55c #6)", () => {
    /** A client that settles only when told to, whatever its signal. */
    function hanging() {
      let settle: (reply: {
        text: string;
        usage: { inputTokens: number; outputTokens: number };
      }) => void = () => {};
      const client = {
        complete: () =>
          new Promise<{ text: string; usage: { inputTokens: number; outputTokens: number } }>(
            (resolve) => {
              settle = resolve;
            },
          ),
      };
      return {
        client,
        settle: () => settle({ text: "late", usage: { inputTokens: 5, outputTokens: 1 } }),
      };
    }

    it.each([
      ["timeout", Object.assign(new Error("timed out"), { name: "TimeoutError" })],
      ["aborted", undefined],
    ])(
      "ends its span as failed (%s) when the signal fires, and ignores a later settle",
      async (type, reason) => {
        const { tracer, spans } = memoryTracing();
        const { client: inner, settle } = hanging();
        const client = traceLlmClient(inner, { model: "m", tracer });
        const controller = new AbortController();
        const pending = client.complete({ prompt: "p", signal: controller.signal });
        expect(spans()).toHaveLength(0);
        controller.abort(reason);
        expect(spans()).toHaveLength(1);
        expect(spans()[0]?.status.code).toBe(2); // SpanStatusCode.ERROR
        expect(spans()[0]?.attributes[G.ERROR_TYPE]).toBe(type);
        settle();
        expect(await pending).toEqual({ text: "late", usage: { inputTokens: 5, outputTokens: 1 } });
        expect(spans()).toHaveLength(1);
        expect(spans()[0]?.attributes[G.USAGE_INPUT_TOKENS]).toBeUndefined();
      },
    );
  });
});

describe("gen_ai.provider.name", () => {
  it("is inferred from a model the library knows, by the name the client sends", async () => {
    const { tracer, spans } = memoryTracing();
    const models: Array<[string, string | undefined]> = [
      ["claude-haiku-4-5", "anthropic"],
      ["claude-opus-4-5-20251101", "anthropic"],
      ["gpt-5-mini", "openai"],
      ["o3", "openai"],
      ["gemini-2.5-flash", "gcp.gemini"],
      ["models/gemini-2.5-flash", "gcp.gemini"],
      ["us.anthropic.claude-sonnet-4-5-20250929-v1:0", "aws.bedrock"],
      ["claude-opus-4-5@20251101", "gcp.vertex_ai"],
      [
        "projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash",
        "gcp.vertex_ai",
      ],
      // A gateway's route, a deployment, a model the library does not know: not guessed.
      ["anthropic/claude-opus-4-5", undefined],
      ["my-azure-deployment", undefined],
      ["llama-4-scout", undefined],
    ];
    for (const [model] of models)
      await traceLlmClient(new MockLlmClient().reply("s"), { model, tracer }).complete({
        prompt: "p",
      });
    expect(spans().map((span) => span.attributes[G.PROVIDER_NAME])).toEqual(
      models.map(([, provider]) => provider),
    );
  });

  it("is the one given when given", async () => {
    const { tracer, spans } = memoryTracing();
    const client = traceLlmClient(new MockLlmClient().reply("s"), {
      model: "gemini-2.5-flash",
      provider: "gcp.vertex_ai",
      tracer,
    });
    await client.complete({ prompt: "p" });
    expect(spans()[0]?.attributes[G.PROVIDER_NAME]).toBe("gcp.vertex_ai");
  });

  it("names the chat span traceCompactions builds from a server-side compaction's usage", () => {
    const { tracer, spans } = memoryTracing();
    const session = new FakeSession();
    traceCompactions(session, { tracer, summarizerModel: "claude-fable-5-1" });
    session.emit({
      type: "compaction_end",
      trigger: "auto",
      strategy: "anthropic",
      result: {
        toolResultsSummarized: 0,
        toolResultsRedacted: 0,
        turnsCompacted: 3,
        usage: { inputTokens: 3_000, outputTokens: 400 },
      },
      tokensBefore: 9_000,
      tokensAfter: 2_000,
      contextUsedBefore: 9_500,
      contextUsedAfter: 2_400,
      boundary: {
        trigger: "auto",
        strategy: "anthropic",
        tokensBefore: 9_000,
        tokensAfter: 2_000,
        turnsCompacted: 3,
        toolResultsCompacted: 0,
        toolInputsCleared: 0,
        messagesRemoved: 0,
        thinkingBlocksDropped: 0,
        thinkingTokensDropped: 0,
        toolExchangeClosed: false,
      },
    });
    const chat = spans().find((span) => span.name === "chat claude-fable-5-1");
    expect(chat?.attributes[G.PROVIDER_NAME]).toBe("anthropic");
  });
});
