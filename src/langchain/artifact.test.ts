// A tool message's artifact that is not JSON is refused here, as docs/api.md promises, whatever
// it is: a `Map`, a `Set`, a `Date` have no own keys, and were taken for an empty default and
// dropped (review F09, item 2).
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../core/errors.js";
import { fromLangChainMessages, toLangChainMessages } from "./index.js";

function problems(artifact: unknown): string[] {
  try {
    fromLangChainMessages([new ToolMessage({ tool_call_id: "c", content: "x", artifact })]);
  } catch (error) {
    if (!ValidationError.isInstance(error)) throw error;
    return error.issues.map((issue) => issue.path.join("."));
  }
  return [];
}

describe("a ToolMessage's artifact", () => {
  it.each([
    ["a Map", new Map([["k", 1]])],
    ["an empty Map", new Map()],
    ["a Set", new Set([1])],
    ["a Date", new Date(0)],
  ])("is refused, named, when it is %s", (_name, artifact) => {
    expect(problems(artifact)).toEqual(["0.artifact"]);
  });

  it("is kept when it is JSON, and left out when it is the empty default", () => {
    expect(problems({ exitCode: 1 })).toEqual([]);
    const [back] = toLangChainMessages(
      fromLangChainMessages([
        new ToolMessage({ tool_call_id: "c", content: "x", artifact: { exitCode: 1 } }),
      ]),
    );
    expect((back as ToolMessage).artifact).toEqual({ exitCode: 1 });
    const [plain] = fromLangChainMessages([
      new ToolMessage({ tool_call_id: "c", content: "x", artifact: {} }),
    ]);
    expect((plain!.content[0] as { extra?: unknown }).extra).toEqual({
      langchain: { message: { noId: true } },
    });
  });

  it("leaves a human message's empty fields (the constructor's defaults) out", () => {
    const [message] = fromLangChainMessages([new HumanMessage("a")]);
    expect(message!.content).toEqual([
      {
        type: "text",
        text: "a",
        extra: { langchain: { message: { content: "string", noId: true } } },
      },
    ]);
  });
});
