import Anthropic from "@anthropic-ai/sdk";
import type { MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import { afterEach, describe, expect, it } from "vitest";
import { answerCompact } from "../../src/anthropic/compact-tool.js";
import {
  AnthropicLlmClient,
  appendAnthropicResponse,
  isAnthropicContextOverflow,
  toAnthropicMessages,
} from "../../src/anthropic/index.js";
import { type AgentSession, LLMCompactor } from "../../src/index.js";
import { withOverflowRecovery } from "../../src/session/overflow-recovery.js";
import { MemoryStore, openSession } from "../../src/store/index.js";
import { AnthropicStandIn, type StandInRequest } from "../../src/testing/anthropic-stand-in.js";
import { TOOLS } from "../support/coding-agent.js";
import { MessagesApiServer, roughTokens } from "../support/messages-api-server.js";
import { overfullSession } from "../support/overfull-session.js";

// A session configured with a window larger than the model's (a resumed session's 1M window on
// a 200K model, scaled down): it never sees the need to compact, so the provider refuses the
// request. The recovery compacts and the retry is accepted; every summarizer request fits.

const WINDOW = 6_000;
const model = "claude-sonnet-5-5";
const system = "You are a coding agent.";
const SUMMARY = "Goal: review modules 0-5. Done: all reviewed, no issues.";

function agentRequest(session: AgentSession): MessageCreateParamsNonStreaming {
  return {
    model,
    max_tokens: 512,
    system,
    tools: TOOLS,
    messages: toAnthropicMessages(session.messages),
  };
}

/** Tokens of a request as the stand-in counts them (a separate stand-in, so nothing is recorded). */
async function standInTokens(body: Record<string, unknown>): Promise<number> {
  const counter = new AnthropicStandIn({ contextWindow: 10_000_000 });
  const { messages, system, tools } = body as unknown as MessageCreateParamsNonStreaming;
  const counted = await counter.messages.countTokens({
    model,
    messages,
    ...(system === undefined ? {} : { system }),
    ...(tools === undefined ? {} : { tools }),
  });
  return counted.input_tokens;
}

const answer = (request: StandInRequest) =>
  request.body["tools"] === undefined || JSON.stringify(request.body).includes("Summary request")
    ? SUMMARY
    : "None had issues.";

describe("withOverflowRecovery against AnthropicStandIn (the window enforced)", () => {
  it("compacts after the refusal and the retry is accepted; the transcript summary fits", async () => {
    const client = new AnthropicStandIn({ contextWindow: WINDOW, defaultReply: answer });
    const session = overfullSession(new AnthropicLlmClient({ client, model }));
    expect(session.contextUsed).toBeGreaterThan(WINDOW);
    expect((await session.maybeCompact()).compacted).toBe(false); // the wrong window hides it

    const recoveries: unknown[] = [];
    const response = await withOverflowRecovery(
      session,
      () => client.messages.create(agentRequest(session)),
      { isOverflow: isAnthropicContextOverflow, onRecovery: (r) => recoveries.push(r.error) },
    );
    appendAnthropicResponse(session, response);

    expect(recoveries).toHaveLength(1);
    expect(isAnthropicContextOverflow(recoveries[0])).toBe(true);
    expect(response.content).toEqual([expect.objectContaining({ text: "None had issues." })]);
    const [first, ...rest] = client.requests;
    expect(await standInTokens(first!.body)).toBeGreaterThan(WINDOW);
    expect(rest.length).toBeGreaterThanOrEqual(2); // the summary parts, the retry
    for (const request of rest)
      expect(await standInTokens(request.body)).toBeLessThanOrEqual(WINDOW);
    expect(JSON.stringify(client.lastRequest?.body)).toContain("Which module had issues?");
    expect(JSON.stringify(session.messages)).toContain(SUMMARY);
  });

  it("a summarizer sending the conversation falls back to the transcript when it is refused too", async () => {
    const client = new AnthropicStandIn({ contextWindow: WINDOW, defaultReply: answer });
    const summarizer = new AnthropicLlmClient({ client, request: { model, system, tools: TOOLS } });
    const session = overfullSession(summarizer);

    // A session that does not learn the window the refusal names (as with a refusal that names
    // none): the summarizer's estimate lets it send the conversation, and it is refused too.
    const response = await withOverflowRecovery(
      { forceCompact: (options) => session.forceCompact(options) },
      () => client.messages.create(agentRequest(session)),
      { isOverflow: isAnthropicContextOverflow },
    );

    expect(response.content).toEqual([expect.objectContaining({ text: "None had issues." })]);
    const sizes = await Promise.all(client.requests.map((request) => standInTokens(request.body)));
    // The agent's request, then the summarizer's conversation request: both refused.
    expect(sizes.slice(0, 2).every((size) => size > WINDOW)).toBe(true);
    expect(JSON.stringify(client.requests[1]?.body)).toContain("Summary request");
    // From then on: the transcript's parts and the retry, each under the window.
    expect(sizes.length).toBeGreaterThanOrEqual(4);
    for (const size of sizes.slice(2)) expect(size).toBeLessThanOrEqual(WINDOW);
  });

  it("a session that learns the window from the refusal sends no summary request the window refuses", async () => {
    const client = new AnthropicStandIn({ contextWindow: WINDOW, defaultReply: answer });
    const summarizer = new AnthropicLlmClient({ client, request: { model, system, tools: TOOLS } });
    const session = overfullSession(summarizer);
    const response = await withOverflowRecovery(
      session,
      () => client.messages.create(agentRequest(session)),
      { isOverflow: isAnthropicContextOverflow },
    );
    expect(response.content).toEqual([expect.objectContaining({ text: "None had issues." })]);
    expect(session.contextLimit).toBe(WINDOW);
    const sizes = await Promise.all(client.requests.map((request) => standInTokens(request.body)));
    // The agent's refused request, then only requests that fit: the transcript's parts, the retry.
    expect(sizes[0]).toBeGreaterThan(WINDOW);
    for (const size of sizes.slice(1)) expect(size).toBeLessThanOrEqual(WINDOW);
  });

  it("a second refusal is rethrown as it came, after one compaction", async () => {
    const client = new AnthropicStandIn({ contextWindow: WINDOW, defaultReply: answer });
    const session = overfullSession(new AnthropicLlmClient({ client, model }));
    let attempts = 0;
    const refusal = new Error("still too long");
    const error = await withOverflowRecovery(
      session,
      async (attempt) => {
        attempts += 1;
        if (attempt === 0) return client.messages.create(agentRequest(session));
        throw Object.assign(refusal, { status: 400, apiMessage: "prompt is too long: 1 > 0" });
      },
      { isOverflow: isAnthropicContextOverflow },
    ).catch((caught: unknown) => caught);
    expect(error).toBe(refusal);
    expect(attempts).toBe(2);
  });
});

describe("a StoredSession (MemoryStore)", () => {
  it("recovers from the refusal and takes the compact tool's answer like AgentSession", async () => {
    const client = new AnthropicStandIn({ contextWindow: WINDOW, defaultReply: answer });
    const session = await openSession(new MemoryStore(), "stored-overflow", {
      contextLimit: 40_000,
      compactor: false,
      llmCompactor: new LLMCompactor(new AnthropicLlmClient({ client, model }), {
        keepRecentTurns: 1,
        maxSummaryTokens: 300,
        maxTranscriptTokens: 2_000,
      }),
    });
    for (let index = 0; index < 6; index += 1) {
      await session.addUserText(`Review module ${index}.`);
      await session.addAssistant([
        { type: "text", text: `Module ${index}: ${"ok; ".repeat(1500)}` },
      ]);
    }
    await session.addUserText("Which module had issues?");
    const send = () =>
      client.messages.create({
        model,
        max_tokens: 512,
        system,
        tools: TOOLS,
        messages: toAnthropicMessages(session.messages),
      });

    const response = await withOverflowRecovery(session, send, {
      isOverflow: isAnthropicContextOverflow,
    });

    expect(response.content).toEqual([expect.objectContaining({ text: "None had issues." })]);
    expect(client.requests.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(session.messages)).toContain(SUMMARY);
    expect(
      answerCompact(session, { id: "toolu_1", input: { notes: "keep module 3" } }),
    ).not.toHaveProperty("is_error");
    expect(session.compactionRequested).toBe(true);
  });
});

describe("withOverflowRecovery through the SDK against the loopback Messages API", () => {
  let server: MessagesApiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("the SDK's BadRequestError is recognized, the session compacts, the retry fits", async () => {
    server = await MessagesApiServer.start({
      contextWindow: WINDOW,
      onMessages: (request) => {
        const body = request.body as { tools?: unknown };
        return { type: "message", text: body.tools === undefined ? SUMMARY : "None had issues." };
      },
    });
    const client = new Anthropic({ apiKey: "test", baseURL: server.url, maxRetries: 0 });
    const session = overfullSession(new AnthropicLlmClient({ client, model }));

    const response = await withOverflowRecovery(
      session,
      () => client.messages.create(agentRequest(session)),
      { isOverflow: isAnthropicContextOverflow },
    );

    expect(response.content).toEqual([expect.objectContaining({ text: "None had issues." })]);
    const sizes = server.requestsTo("messages").map((request) => {
      const { system, tools, messages } = request.body as Record<string, unknown>;
      return roughTokens({ system, tools, messages });
    });
    expect(sizes[0]).toBeGreaterThan(WINDOW);
    expect(sizes.length).toBeGreaterThanOrEqual(3);
    for (const size of sizes.slice(1)) expect(size).toBeLessThanOrEqual(WINDOW);
  });
});
