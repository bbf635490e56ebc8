import { describe, expect, it } from "vitest";
import { AgentSession } from "../session/agent-session.js";
import { fromGeminiContents } from "./contents-in.js";
import { toGeminiContents } from "./contents-out.js";
import { appendGeminiResponse } from "./response.js";

describe("results of calls without ids (Gemini 2 sends none)", () => {
  it("go out in the order of their calls, so each answers its own call", () => {
    const session = new AgentSession({ contextLimit: 100_000 });
    session.addUserText("Read both files.");
    const { toolUses } = appendGeminiResponse(session, {
      candidates: [
        {
          content: {
            role: "model",
            parts: [
              { functionCall: { name: "read", args: { path: "a.txt" } }, thoughtSignature: "S" },
              { functionCall: { name: "read", args: { path: "b.txt" } } },
              { functionCall: { name: "list", args: {} } },
            ],
          },
        },
      ],
    });
    const [a, b, list] = toolUses;
    // Added as the tools finished: the list first, then b, then a.
    session.addToolResults([
      { type: "tool_result", toolUseId: list!.id, content: "a.txt b.txt" },
      { type: "tool_result", toolUseId: b!.id, content: "contents of B" },
      { type: "tool_result", toolUseId: a!.id, content: "contents of A" },
    ]);
    const contents = toGeminiContents(session.messages);
    expect(contents.at(-1)!.parts!.map((part) => part.functionResponse?.response)).toEqual([
      { output: "contents of A" },
      { output: "contents of B" },
      { output: "a.txt b.txt" },
    ]);
    // Read back (as Gemini pairs them: by name, in order), each answers its own call.
    const [, calls, results] = fromGeminiContents(contents);
    const pathOf = (id: string) =>
      calls!.content.find((block) => block.type === "tool_use" && block.id === id);
    for (const block of results!.content)
      if (block.type === "tool_result")
        expect(JSON.stringify(pathOf(block.toolUseId))).toContain(
          block.content === "contents of A"
            ? "a.txt"
            : block.content === "contents of B"
              ? "b.txt"
              : "list",
        );
  });

  it("read from contents out of call order, come back in call order (as fromGeminiContents says)", () => {
    const answer = (name: string, id?: string) => ({
      functionResponse: { ...(id === undefined ? {} : { id }), name, response: { output: name } },
    });
    const call = (name: string, id?: string) => ({
      functionCall: { ...(id === undefined ? {} : { id }), name, args: {} },
    });
    const contents = (ids: boolean) => [
      { role: "user", parts: [{ text: "go" }] },
      {
        role: "model",
        parts: [
          { ...call("read", ids ? "c1" : undefined), thoughtSignature: "S" },
          call("sh", ids ? "c2" : undefined),
        ],
      },
      {
        role: "user",
        parts: [answer("sh", ids ? "c2" : undefined), answer("read", ids ? "c1" : undefined)],
      },
    ];
    const back = (ids: boolean) => toGeminiContents(fromGeminiContents(contents(ids)));
    expect(back(true)).toEqual(contents(true));
    expect(back(false).at(-1)!.parts).toEqual([answer("read"), answer("sh")]);
  });
});
