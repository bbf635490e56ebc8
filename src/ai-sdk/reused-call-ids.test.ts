import { generateText, type ModelMessage, stepCountIs, wrapLanguageModel } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { anthropicModel, read, refusals, THINKING } from "../../test/support/ai-sdk-providers.js";
import { MessagesApiServer, roughTokens } from "../../test/support/messages-api-server.js";
import { validateConversation } from "../core/validate-conversation.js";
import { AgentSession } from "../session/agent-session.js";
import { compactionMiddleware } from "./compaction-middleware.js";
import { fromModelMessages, toModelMessages } from "./model-messages.js";

/**
 * Review 55a's finding 2, on the AI SDK: `toModelMessages` sent an answered call's id again
 * as it came, and `@ai-sdk/anthropic` sends a `toolCallId` as the `tool_use` id, which the API
 * refuses twice ("`tool_use` ids must be unique").
 */

const servers: MessagesApiServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** Two reads, each called `call_0` (a provider numbering each reply's calls), then an answer. */
function reusing(): AgentSession {
  const session = new AgentSession({ contextLimit: 100_000 });
  session.addUserText("Read both files.");
  for (const path of ["a.ts", "b.ts"]) {
    session.addAssistant([{ type: "tool_use", id: "call_0", name: "read", input: { path } }]);
    session.addToolResults([{ type: "tool_result", toolUseId: "call_0", content: `// ${path}` }]);
  }
  return session;
}

type Part = { type: string; toolCallId?: string };
const idsOf = (messages: readonly ModelMessage[], type: string) =>
  messages.flatMap((message) =>
    typeof message.content === "string"
      ? []
      : (message.content as Part[]).flatMap((part) =>
          part.type === type ? [part.toolCallId] : [],
        ),
  );

describe("toModelMessages with a call id used again once answered", () => {
  it("sends the second call and its result as `<id>_2`, which @ai-sdk/anthropic sends as the API takes it", async () => {
    const session = reusing();
    expect(validateConversation(session.messages, { provider: "ai-sdk" })).toEqual([]);
    const messages = toModelMessages(session.messages);
    expect(idsOf(messages, "tool-call")).toEqual(["call_0", "call_0_2"]);
    expect(idsOf(messages, "tool-result")).toEqual(["call_0", "call_0_2"]);

    const server = await MessagesApiServer.start();
    servers.push(server);
    await generateText({ model: anthropicModel(server), messages, maxRetries: 0 });
    expect(await refusals(server)).toEqual([]);
    const [request] = server.requestsTo("messages");
    const wire = (request!.body as { messages: { content: { type: string; id?: string }[] }[] })
      .messages;
    const uses = wire.flatMap((message) =>
      message.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : [])),
    );
    expect(uses).toEqual(["call_0", "call_0_2"]);
  });

  it("keeps a renamed call's approval request and response with it, and distinct ids as they came", () => {
    const history: ModelMessage[] = [
      { role: "user", content: "Delete both." },
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "call_0", toolName: "rm", input: {} }],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "call_0",
            toolName: "rm",
            output: { type: "text", value: "ok" },
          },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "tool-call", toolCallId: "call_0", toolName: "rm", input: {} },
          { type: "tool-approval-request", approvalId: "ap1", toolCallId: "call_0" },
        ],
      },
    ];
    const sent = toModelMessages(fromModelMessages(history, { sessionId: "s" }));
    expect(sent[3]!.content).toEqual([
      { type: "tool-call", toolCallId: "call_0_2", toolName: "rm", input: {} },
      { type: "tool-approval-request", approvalId: "ap1", toolCallId: "call_0_2" },
    ]);
    // A response that names the call (beside its approval id) names it as its request does.
    const answered: ModelMessage[] = [
      ...history,
      {
        role: "tool",
        content: [
          {
            type: "tool-approval-response",
            approvalId: "ap1",
            approved: true,
            toolCallId: "call_0",
          },
        ] as never,
      },
    ];
    expect(toModelMessages(fromModelMessages(answered, { sessionId: "s" }))[4]!.content).toEqual([
      { type: "tool-approval-response", approvalId: "ap1", approved: true, toolCallId: "call_0_2" },
    ]);
    // Where no id comes twice, the round trip gives the messages back as they were.
    const distinct = history.slice(0, 3);
    expect(toModelMessages(fromModelMessages(distinct, { sessionId: "s" }))).toEqual(distinct);
  });
});

// Review 57d: the new id of a reused call depended on the calls after it. A provider numbering
// its calls gave the id the reuse had been renamed to (`call_0_2`), and the next request sent
// the earlier call as `call_0_2_`: an edit before the signed thinking after it (a 400).
describe("a loop whose provider gives the id a reuse was renamed to", () => {
  it("sends each request's calls as the request before sent them: the thinking after them stays valid", async () => {
    const given = ["call_0", "call_0", "call_0_2"];
    const server = await MessagesApiServer.start({
      onMessages: (request) => {
        const usage = { input_tokens: roughTokens(request.body), output_tokens: 40 };
        const id = given.shift();
        if (id === undefined) return { type: "message", text: "Done.", usage };
        const use = { type: "tool_use", id, name: "read", input: { path: `${id}.ts` } };
        return { type: "message", content: [use], stopReason: "tool_use", usage };
      },
    });
    servers.push(server);
    const model = wrapLanguageModel({
      model: anthropicModel(server),
      middleware: compactionMiddleware({ contextLimit: 200_000 }),
    });
    const result = await generateText({
      model,
      tools: { read },
      prompt: "Read three files.",
      stopWhen: stepCountIs(6),
      maxRetries: 0,
      providerOptions: THINKING,
    });
    expect(result.text).toBe("Done.");
    expect(await refusals(server)).toEqual([]);
    const uses = server
      .requestsTo("messages")
      .map((request) =>
        (request.body as { messages: { content: { type: string; id?: string }[] }[] }).messages
          .flatMap((message) => message.content)
          .flatMap((block) => (block.type === "tool_use" ? [block.id] : [])),
      );
    expect(uses.at(-1)).toEqual(["call_0", "call_0_2", "call_0_2_2"]);
  });
});
