import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Issued,
  ResponsesApiServer,
  responsesInputProblem,
} from "./openai-responses-server.js";

const issued = (): Issued => ({
  encrypted: new Map([
    ["rs_1", "ENC-R1"],
    ["cmp_1", "ENC-C1"],
  ]),
  requiresReasoning: new Map([
    ["fc_1", "rs_1"],
    ["msg_1", "rs_1"],
  ]),
});
const user = { role: "user", content: "go" };
const reasoning = { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "ENC-R1" };
const call = {
  type: "function_call",
  id: "fc_1",
  call_id: "call_1",
  name: "read",
  arguments: "{}",
};
const output = { type: "function_call_output", call_id: "call_1", output: "ok" };
const compaction = { type: "compaction", id: "cmp_1", encrypted_content: "ENC-C1" };
const problem = (input: unknown[]) => responsesInputProblem(input, issued())?.message;

describe("the loopback Responses API's input rules", () => {
  it("accepts a well-formed tool loop, with reasoning kept before its call", () => {
    expect(problem([user, reasoning, call, output])).toBeUndefined();
    expect(problem([user, compaction, user, reasoning, call, output])).toBeUndefined();
  });

  it("1-2: pairs every function_call with a function_call_output by call_id", () => {
    expect(problem([user, reasoning, call])).toBe("No tool output found for function call call_1.");
    expect(problem([user, output])).toBe(
      "No tool call found for function call output with call_id call_1.",
    );
    expect(problem([user, output, reasoning, call])).toMatch(/^No tool call found/);
  });

  it("8: answers each call_id once, a call_id reused across turns too", () => {
    const { id: _, ...again } = call;
    expect(problem([user, reasoning, call, output, user, again, output])).toBe(
      "Duplicate function_call_output for call_id 'call_1'. Each function_call must have exactly one matching function_call_output",
    );
  });

  it("10: takes an input message's parts of the API's own types only", () => {
    const text = { type: "text", text: "Be terse." };
    expect(problem([{ role: "developer", content: [text] }, user])).toBe(
      "Invalid value: 'text'. Supported values are: 'input_text', 'input_image', 'output_text', 'refusal', 'input_file', 'computer_screenshot', 'summary_text'.",
    );
    const own = { type: "input_text", text: "Be terse." };
    expect(problem([{ role: "developer", content: [own] }, user])).toBeUndefined();
    expect(problem([{ type: "message", role: "user", content: [own] }])).toBeUndefined();
  });

  it("9: refuses the fields the SDK's parse() and stream() helpers add", () => {
    const parsedCall = { ...call, parsed_arguments: null };
    expect(problem([user, reasoning, parsedCall, output])).toBe(
      "Unknown parameter: 'input[2].parsed_arguments'.",
    );
    const part = { type: "output_text", text: "hi", annotations: [] };
    const answer = {
      type: "message",
      role: "assistant",
      content: [part, { ...part, parsed: null }],
    };
    expect(problem([user, answer])).toBe("Unknown parameter: 'input[1].content[1].parsed'.");
    expect(problem([user, { ...answer, content: [part] }])).toBeUndefined();
  });

  it("3-4: keeps reasoning with the item that follows it", () => {
    expect(problem([user, reasoning])).toMatch(
      /'rs_1' of type 'reasoning' was provided without its required following item/,
    );
    expect(problem([user, reasoning, user])).toMatch(/required following item/);
    expect(problem([user, call, output])).toBe(
      "Item 'fc_1' of type 'function_call' was provided without its required 'reasoning' item: 'rs_1'.",
    );
    // Without the id, the call stands alone: the API cannot ask for its reasoning.
    expect(problem([user, { ...call, id: undefined }, output])).toBeUndefined();
  });

  it("5: refuses encrypted content that is not byte for byte what was issued", () => {
    expect(problem([user, { ...reasoning, encrypted_content: "ENC-R1 " }, call, output])).toMatch(
      /could not be verified/,
    );
    expect(problem([user, { ...compaction, encrypted_content: "forged" }])).toMatch(
      /could not be verified/,
    );
    expect(problem([user, { type: "compaction", encrypted_content: "ENC-C1" }])).toBeUndefined();
  });

  it("6-7: places compaction items between whole items, compaction_trigger last", () => {
    expect(problem([user, reasoning, compaction, call, output])).toMatch(/required following item/);
    expect(problem([user, reasoning, call, compaction, output])).toBe(
      "No tool output found for function call call_1.",
    );
    expect(problem([user, { type: "compaction_trigger" }, user])).toMatch(
      /must be the final input item/,
    );
    expect(problem([user, { type: "compaction_trigger" }])).toBeUndefined();
  });
});

describe("ResponsesApiServer through the openai SDK", () => {
  let server: ResponsesApiServer;
  let client: OpenAI;
  beforeAll(async () => {
    server = await ResponsesApiServer.start((_request, ids) => ({
      output: [
        { type: "reasoning", id: ids("rs"), summary: [] },
        {
          type: "message",
          id: ids("msg"),
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "hi", annotations: [] }],
        },
      ],
      cachedTokens: 3,
    }));
    client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 });
  });
  afterAll(() => server.close());

  it("answers from the script, issuing encrypted reasoning, and refuses a broken input with a 400", async () => {
    const response = await client.responses.create({
      model: "gpt-5.6-luna",
      input: "hello",
      store: false,
    });
    expect(response.output_text).toBe("hi");
    expect(response.usage?.input_tokens_details.cached_tokens).toBe(3);
    const [rs, msg] = response.output as { id: string }[];
    // The reply's message cannot go back without its reasoning.
    const bad = client.responses.create({
      model: "gpt-5.6-luna",
      input: [response.output[1]!] as never,
    });
    await expect(bad).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(bad).rejects.toThrow(`without its required 'reasoning' item: '${rs!.id}'`);
    const good = await client.responses.create({
      model: "gpt-5.6-luna",
      input: [{ role: "user", content: "hello" }, ...response.output] as never,
    });
    expect(good.status).toBe("completed");
    expect(msg!.id).toMatch(/^msg_/);
  });

  it("3: refuses an incomplete response's lone reasoning item sent back before the next message", async () => {
    const script = server.script;
    server.script = (_request, ids) => ({
      status: "incomplete",
      output: [{ type: "reasoning", id: ids("rs"), summary: [] }],
    });
    try {
      const incomplete = await client.responses.create({ model: "gpt-5.6-luna", input: "hello" });
      expect(incomplete.status).toBe("incomplete");
      expect(incomplete.incomplete_details?.reason).toBe("max_output_tokens");
      const [lone] = incomplete.output as { id: string }[];
      const next = client.responses.create({
        model: "gpt-5.6-luna",
        input: [
          { role: "user", content: "hello" },
          ...incomplete.output,
          { role: "user", content: "go on" },
        ] as never,
      });
      await expect(next).rejects.toThrow(
        `Item '${lone!.id}' of type 'reasoning' was provided without its required following item.`,
      );
    } finally {
      server.script = script;
    }
  });

  it("compacts to the user messages and one verifiable compaction item", async () => {
    const compacted = await client.responses.compact({
      model: "gpt-5.6-luna",
      input: [
        { role: "user", content: "a" },
        { role: "assistant", content: "b" },
        { role: "user", content: "c" },
      ],
    });
    expect(compacted.output.map((item) => item.type)).toEqual(["message", "message", "compaction"]);
    expect(compacted.usage.input_tokens_details.cached_tokens).toBeGreaterThan(0);
    const ok = await client.responses.create({
      model: "gpt-5.6-luna",
      input: [...compacted.output, { role: "user", content: "d" }] as never,
    });
    expect(ok.status).toBe("completed");
  });
});
