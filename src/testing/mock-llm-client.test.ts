import { describe, expect, it } from "vitest";
import { MockLlmClient } from "./mock-llm-client.js";

describe("MockLlmClient", () => {
  it("takes its script as options or as a plain array, records requests, then falls back", async () => {
    const client = new MockLlmClient(["first", new Error("down")]);
    await expect(client.complete({ prompt: "a" })).resolves.toBe("first");
    await expect(client.complete({ prompt: "b" })).rejects.toThrow("down");
    await expect(client.complete({ prompt: "c" })).resolves.toMatch(/^Summary 3/);
    expect(client.requests.map((request) => request.prompt)).toEqual(["a", "b", "c"]);
  });
});
