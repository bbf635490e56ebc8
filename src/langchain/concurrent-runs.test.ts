import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { compactionMiddleware } from "./compaction-middleware.js";

// Runs without a `thread_id` share the middleware's default thread. A new thread's session had
// seen nothing until its compaction's wait was over, and nothing is a start of every state: a
// second run meanwhile was taken for the first one's continuation, and one user's words went
// into another user's model request.

const read = tool(async ({ path }: { path: string }) => `contents of ${path}\n${"x".repeat(400)}`, {
  name: "read_file",
  description: "Reads a file",
  schema: z.object({ path: z.string() }),
});

function model(user: string) {
  const reply = fakeModel();
  for (let step = 0; step < 3; step += 1)
    reply.respond(
      new AIMessage({
        id: `ai-${user}-${step}`,
        content: `Reading ${user} ${step}.`,
        tool_calls: [
          {
            id: `call-${user}-${step}`,
            name: "read_file",
            args: { path: `${user}/${step}.ts` },
            type: "tool_call",
          },
        ],
      }),
    );
  reply.respond(new AIMessage({ id: `ai-${user}-done`, content: `Done, ${user}.` }));
  return reply;
}

describe("two conversations at once on the middleware's default thread", () => {
  it("keep each one's messages to itself", async () => {
    const middleware = compactionMiddleware({ contextLimit: 50_000 });
    const models = { alice: model("alice"), bob: model("bob") };
    const runs = await Promise.all(
      (["alice", "bob"] as const).map((user) =>
        createAgent({ model: models[user], tools: [read], middleware: [middleware] }).invoke({
          messages: [new HumanMessage({ id: `h-${user}`, content: `${user}: read my files.` })],
        }),
      ),
    );
    for (const [user, other] of [
      ["alice", "bob"],
      ["bob", "alice"],
    ] as const) {
      const requests = JSON.stringify(models[user].calls.map((call) => call.messages));
      expect(requests).toContain(`${user}: read my files.`);
      expect(requests).not.toContain(`${other}: read`);
    }
    expect(runs.map((run) => run.messages.at(-1)?.content)).toEqual(["Done, alice.", "Done, bob."]);
  });
});
