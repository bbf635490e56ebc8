import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  isOpenAIContextOverflow,
  OpenAILlmClient,
  toResponsesInput,
} from "../../src/openai/index.js";
import { withOverflowRecovery } from "../../src/session/overflow-recovery.js";
import { ResponsesApiServer, roughTokens } from "../support/openai-responses-server.js";
import { overfullSession } from "../support/overfull-session.js";

// The same recovery through the real openai SDK: the loopback Responses API enforces a window
// the session was configured above (a wrong contextLimit), refuses with context_length_exceeded,
// and the retry after the forced compaction is accepted; the summarizer's own requests fit.

const WINDOW = 6_000;
const MODEL = "gpt-6.1-sol";

describe("overflow recovery through the openai SDK and the loopback Responses API", () => {
  let server: ResponsesApiServer;
  let client: OpenAI;
  beforeAll(async () => {
    server = await ResponsesApiServer.start(() => ({
      output: [
        {
          type: "message",
          id: `msg_${Math.random().toString(36).slice(2, 8)}`,
          role: "assistant",
          status: "completed",
          content: [
            { type: "output_text", text: "Goal: review modules. Done: all.", annotations: [] },
          ],
        },
      ],
    }));
    server.contextWindow = WINDOW;
    client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 });
  });
  afterAll(() => server.close());

  it("a context_length_exceeded refusal compacts the session, and the retry is accepted", async () => {
    const session = overfullSession(new OpenAILlmClient({ client, model: MODEL }));
    const before = server.refusals.length;
    let attempts = 0;
    const response = await withOverflowRecovery(
      session,
      () => {
        attempts += 1;
        return client.responses.create({ model: MODEL, input: toResponsesInput(session.messages) });
      },
      { isOverflow: isOpenAIContextOverflow },
    );
    expect(response.status).toBe("completed");
    expect(attempts).toBe(2);
    expect(server.refusals.slice(before).map((refusal) => refusal.message)).toEqual([
      "context_length_exceeded",
    ]);
    // Every request after the refusal (the summarizer's and the retry) fit the window.
    const sent = server.requests.slice(-3).map((request) => roughTokens(request.body["input"]));
    for (const tokens of sent) expect(tokens).toBeLessThanOrEqual(WINDOW);
  });
});
