import { generateText, type ModelMessage, stepCountIs, tool } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { anthropicModel, read, refusals, THINKING } from "../../test/support/ai-sdk-providers.js";
import { answeringModel } from "../../test/support/answering-model.js";
import { MessagesApiServer, roughTokens } from "../../test/support/messages-api-server.js";
import { compactModelMessages } from "./compact-model-messages.js";
import { compactionPrepareStep } from "./prepare-step.js";

// An approved call's exchange is two tool messages (the approval, then the result the SDK adds
// when it runs the tool). The thinking of the assistant message that made the call must stay:
// the API refuses a final assistant message of a tool loop without it. The landing took only a
// single message of results after the call as the open exchange, and stripped it.

const servers: MessagesApiServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/**
 * A thinking loop of six reads, then a call that needs approval: the history with the user's
 * approval after it, and what the continuation needs.
 */
async function approvedHistory() {
  let replies = 0;
  const server = await MessagesApiServer.start({
    onMessages: (request) => {
      const usage = { input_tokens: roughTokens(request.body), output_tokens: 40 };
      replies += 1;
      const call = (id: string, name: string, input: object) => ({
        type: "tool_use",
        id,
        name,
        input,
      });
      if (replies <= 6)
        return {
          type: "message",
          content: [call(`toolu_r${replies}`, "read", { path: `src/f${replies}.ts` })],
          stopReason: "tool_use",
          usage,
        };
      if (replies === 7)
        return {
          type: "message",
          content: [call("toolu_del", "remove", { path: "build/" })],
          stopReason: "tool_use",
          usage,
        };
      return { type: "message", text: "Deleted.", usage };
    },
  });
  servers.push(server);
  const removed: string[] = [];
  const remove = tool({
    inputSchema: z.object({ path: z.string() }),
    needsApproval: true,
    execute: async ({ path }) => {
      removed.push(path);
      return `removed ${path}`;
    },
  });
  const tools = { read, remove };
  const options = { tools, maxRetries: 0, providerOptions: THINKING } as const;
  const start: ModelMessage[] = [{ role: "user", content: "Read the files, then clean build/." }];
  const first = await generateText({
    ...options,
    model: anthropicModel(server),
    messages: start,
    stopWhen: stepCountIs(20),
  });
  const asked = (
    first.response.messages.at(-1)!.content as { type: string; approvalId?: string }[]
  ).find((part) => part.type === "tool-approval-request")!;
  const approved: ModelMessage = {
    role: "tool",
    content: [{ type: "tool-approval-response", approvalId: asked.approvalId!, approved: true }],
  };
  const history = [...start, ...first.response.messages, approved];
  return { server, options, history, removed };
}

/** The continuation of `history`: its answer and the outcomes of the requests it made. */
async function continued(
  { server, options }: Awaited<ReturnType<typeof approvedHistory>>,
  messages: ModelMessage[],
  prepareStep?: ReturnType<typeof compactionPrepareStep>,
) {
  const before = server.requestsTo("messages").length;
  const second = await generateText({
    ...options,
    model: anthropicModel(server),
    messages,
    stopWhen: stepCountIs(3),
    ...(prepareStep === undefined ? {} : { prepareStep }),
  });
  const requests = server.requestsTo("messages").slice(before);
  return {
    text: second.text,
    outcomes: await Promise.all(requests.map((request) => request.outcome)),
  };
}

describe("a tool approval in a thinking loop", () => {
  it("compacted by prepareStep: keeps the approved call's thinking, the continuation is accepted", async () => {
    const loop = await approvedHistory();
    const prepareStep = compactionPrepareStep({ contextLimit: 3000 });
    const { text, outcomes } = await continued(loop, loop.history, prepareStep);
    expect(text).toBe("Deleted.");
    expect(loop.removed).toEqual(["build/"]);
    expect(outcomes).toEqual(["answered"]);
  });

  // Review 52d's finding 4: before the SDK runs the approved call, its results are not there
  // yet; a compaction before the call made its thinking stale, and the request with the
  // results was refused ("a final assistant message must start with a thinking block").
  it("compactModelMessages before the call ran leaves it whole: alone, or with prepareStep after it", async () => {
    for (const [contextLimit, prepare] of [
      [10_000, false],
      [3_000, true],
    ] as const) {
      const loop = await approvedHistory();
      const { messages, compacted } = await compactModelMessages(loop.history, { contextLimit });
      expect(compacted).toBe(false);
      expect(messages).toBe(loop.history);
      const prepareStep = prepare ? compactionPrepareStep({ contextLimit }) : undefined;
      const { text, outcomes } = await continued(loop, messages, prepareStep);
      expect(text).toBe("Deleted.");
      expect(outcomes).toEqual(["answered"]);
    }
  });
});

describe("a call awaiting its run after the user's approval (review 55b #2)", () => {
  it("compactModelMessages keeps it with its approval request, however large its input: the SDK runs it", async () => {
    const history: ModelMessage[] = [
      { role: "user", content: "Write a.ts." },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Writing." },
          {
            type: "tool-call",
            toolCallId: "w1",
            toolName: "write",
            input: { path: "a.ts", content: "x".repeat(60_000) },
          },
          { type: "tool-approval-request", approvalId: "ap1", toolCallId: "w1" },
        ],
      },
      {
        role: "tool",
        content: [{ type: "tool-approval-response", approvalId: "ap1", approved: true }],
      },
    ];
    const { messages } = await compactModelMessages(history, { contextLimit: 20_000 });
    expect(messages.slice(1)).toEqual(history.slice(1));
    const ran: number[] = [];
    const write = tool({
      inputSchema: z.object({ path: z.string(), content: z.string() }),
      needsApproval: true,
      execute: async ({ content }) => {
        ran.push(content.length);
        return "ok";
      },
    });
    const result = await generateText({
      model: answeringModel("Done."),
      tools: { write },
      messages,
      stopWhen: stepCountIs(2),
    });
    expect([result.text, ran]).toEqual(["Done.", [60_000]]);
  });
});

// Review 57d: with a call that needed no approval made beside the ones that did, its result
// stands before the user's approvals; the calls awaiting their run were taken as answered, the
// exchange closed by a continuation after the approvals, and the SDK refused the history
// (`AI_MissingToolResultsError`: it runs approved calls only at the end).
describe("approvals beside a call that needed none, in a thinking loop", () => {
  it("compactModelMessages leaves the calls awaiting their run whole: one denied, one approved, the loop goes on", async () => {
    let replies = 0;
    const server = await MessagesApiServer.start({
      onMessages: (request) => {
        const usage = { input_tokens: roughTokens(request.body), output_tokens: 40 };
        replies += 1;
        const call = (id: string, name: string, input: object) => ({
          type: "tool_use",
          id,
          name,
          input,
        });
        const content =
          replies <= 8
            ? [call(`toolu_r${replies}`, "read", { path: `src/f${replies}.ts` })]
            : replies === 9
              ? [
                  call("toolu_d1", "remove", { path: "build/" }),
                  call("toolu_d2", "remove", { path: "dist/" }),
                  call("toolu_r9", "read", { path: "x.ts" }),
                ]
              : undefined;
        return content === undefined
          ? { type: "message", text: "Done.", usage }
          : { type: "message", content, stopReason: "tool_use", usage };
      },
    });
    servers.push(server);
    const removed: string[] = [];
    const remove = tool({
      inputSchema: z.object({ path: z.string() }),
      needsApproval: true,
      execute: async ({ path }) => {
        removed.push(path);
        return `removed ${path}`;
      },
    });
    const options = {
      model: anthropicModel(server),
      tools: { read, remove },
      maxRetries: 0,
      providerOptions: THINKING,
      stopWhen: stepCountIs(20),
    } as const;
    const start: ModelMessage[] = [{ role: "user", content: "Read the files, then clean." }];
    const first = await generateText({ ...options, messages: start });
    const asked = first.response.messages
      .flatMap((message) =>
        typeof message.content === "string"
          ? []
          : (message.content as { type: string; approvalId?: string }[]),
      )
      .flatMap((part) => (part.type === "tool-approval-request" ? [part.approvalId!] : []));
    expect(asked).toHaveLength(2);
    const answers: ModelMessage = {
      role: "tool",
      content: [
        { type: "tool-approval-response", approvalId: asked[0]!, approved: false, reason: "no" },
        { type: "tool-approval-response", approvalId: asked[1]!, approved: true },
      ],
    };
    const history = [...start, ...first.response.messages, answers];
    const { messages } = await compactModelMessages(history, { contextLimit: 6_000 });
    expect(messages.at(-1)).toBe(answers);
    const second = await generateText({ ...options, messages });
    expect([second.text, removed]).toEqual(["Done.", ["dist/"]]);
    expect(await refusals(server)).toEqual([]);
  });
});
