import { GoogleGenAI } from "@google/genai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgent } from "../../examples/gemini-agent.js";
import { offlineGemini } from "../../examples/support/offline-gemini.js";
import { GeminiApiServer } from "../support/gemini-api-server.js";

let server: GeminiApiServer;

beforeEach(async () => {
  server = await GeminiApiServer.start(offlineGemini());
});

afterEach(async () => {
  await server.close();
});

describe("examples/gemini-agent.ts", () => {
  it("runs offline on the real SDK, masks and summarizes, and no request is refused", async () => {
    const lines: string[] = [];
    const client = new GoogleGenAI({
      apiKey: "offline-stand-in",
      httpOptions: { baseUrl: server.url },
    });
    const report = await runAgent({
      client,
      model: "gemini-3-flash-preview",
      log: (line) => lines.push(line),
    });
    expect(report.compactions).toEqual({ threshold: 1, llm: 1, failed: 0 });
    expect(report.toolCalls).toBe(6);
    expect(server.refusals).toEqual([]);
    // Signatures went back: the current turn's calls are checked on every request.
    expect(
      server.requests.filter((request) => JSON.stringify(request.body).includes("thoughtSignature"))
        .length,
    ).toBeGreaterThan(3);
    expect(lines.at(-1)).toMatch(/never modify files under vendor\//);
  });
});
