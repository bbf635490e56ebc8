import { describe, expect, it } from "vitest";
import { compactModelMessages } from "../ai-sdk/compact-model-messages.js";
import { fromModelMessages } from "../ai-sdk/model-messages.js";
import { compactAnthropicMessages } from "../anthropic/compact-messages.js";
import { fromAnthropicMessages } from "../anthropic/turns.js";
import { fromChatMessages } from "../chat-completions/chat-messages-in.js";
import { compactChatMessages } from "../chat-completions/compact-messages.js";
import { compactGeminiContents } from "../gemini/compact-contents.js";
import { fromGeminiContents } from "../gemini/contents-in.js";
import { compactResponsesInput } from "../openai/compact-input.js";
import { fromResponsesInput } from "../openai/responses-input.js";
import { AgentSession } from "../session/agent-session.js";
import { PDF_PAGE_TOKENS } from "./audio-tokens.js";
import type { Message } from "./message.js";
import { estimateTokens } from "./message-memo.js";
import { charsToTokens } from "./tokens.js";

// A user's PDF in a document block (Anthropic's `document`, Chat Completions' `file`, the
// Responses API's `input_file`, the AI SDK's `file`) was counted as its base64 text: a 400 kB
// scan of 5 pages (some 8k tokens on Claude) came to 133k, over a 128k window, so the one-call
// helpers folded the conversation away and a session trusted no usage the API reported. A PDF
// is counted by its pages now (Claude: 1,500 to 3,000 tokens a page; Gemini: 258), where its
// page objects can be read, else by its bytes.

/** A PDF of `pages` pages, each drawing `text` and holding `scanBytes` of image data, as base64. */
function pdf(pages: number, text: string, scanBytes = 0, pageType = "/Type /Page"): string {
  const kids = Array.from({ length: pages }, (_, page) => `${3 + page * 2} 0 R`).join(" ");
  const objects = ["<< /Type /Catalog /Pages 2 0 R >>", `<< /Type /Pages /Kids [${kids}] >>`];
  for (let page = 0; page < pages; page += 1) {
    objects.push(`<< ${pageType} /Parent 2 0 R /Contents ${4 + page * 2} 0 R >>`);
    const stream = `BT (${text}) Tj ET\n${"\u00ff".repeat(scanBytes)}`;
    objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  }
  const body = objects.map((object, at) => `${at + 1} 0 obj\n${object}\nendobj\n`).join("");
  return Buffer.from(`%PDF-1.7\n${body}trailer\n<< /Root 1 0 R >>\n%%EOF\n`, "latin1").toString(
    "base64",
  );
}

/** Five scanned pages of 80 kB: 400 kB, 533k characters of base64. */
const SCAN = pdf(5, "", 80_000);
/** Ten pages of text, 30 kB. */
const TEXT = pdf(10, "A line of the quarterly report. ".repeat(90));
const url = (data: string) => `data:application/pdf;base64,${data}`;

/** The user's request holding the PDF `data` in each format that carries documents. */
const ASK = {
  anthropic: (data: string) => ({
    role: "user" as const,
    content: [
      {
        type: "document" as const,
        source: { type: "base64" as const, media_type: "application/pdf" as const, data },
      },
      { type: "text" as const, text: "Summarize this report." },
    ],
  }),
  chat: (data: string) => ({
    role: "user" as const,
    content: [
      { type: "file" as const, file: { file_data: url(data), filename: "report.pdf" } },
      { type: "text" as const, text: "Summarize this report." },
    ],
  }),
  responses: (data: string) => ({
    role: "user" as const,
    content: [
      { type: "input_file" as const, file_data: url(data), filename: "report.pdf" },
      { type: "input_text" as const, text: "Summarize this report." },
    ],
  }),
  aiSdk: (data: string) => ({
    role: "user" as const,
    content: [
      { type: "file" as const, data, mediaType: "application/pdf" },
      { type: "text" as const, text: "Summarize this report." },
    ],
  }),
  gemini: (data: string) => ({
    role: "user",
    parts: [
      { inlineData: { mimeType: "application/pdf", data } },
      { text: "Summarize this report." },
    ],
  }),
};

/** What the local estimate counts of the request holding `data`, in each format. */
function estimates(data: string): Record<keyof typeof ASK, number> {
  const of = (messages: Message[]) => estimateTokens(messages);
  return {
    anthropic: of(fromAnthropicMessages([ASK.anthropic(data)])),
    chat: of(fromChatMessages([ASK.chat(data)])),
    responses: of(fromResponsesInput([ASK.responses(data)])),
    aiSdk: of(fromModelMessages([ASK.aiSdk(data)])),
    gemini: of(fromGeminiContents([ASK.gemini(data)])),
  };
}

/** Twenty exchanges of 250 tokens a message before the user's file. */
const HISTORY = Array.from({ length: 20 }, (_, index) => [
  `question ${index} ${"q".repeat(1_000)}`,
  `answer ${index} ${"a".repeat(1_000)}`,
]);

describe("the local estimate of a PDF", () => {
  it("counts a document block by its pages in every format, Gemini's at its own rate", () => {
    for (const [data, pages] of [
      [SCAN, 5],
      [TEXT, 10],
    ] as const) {
      const { gemini, ...others } = estimates(data);
      for (const [format, estimate] of Object.entries(others)) {
        expect([format, estimate]).toEqual([format, expect.any(Number)]);
        expect(estimate).toBeGreaterThanOrEqual(pages * PDF_PAGE_TOKENS);
        expect(estimate).toBeLessThan(pages * PDF_PAGE_TOKENS + 100);
      }
      expect(gemini).toBeGreaterThanOrEqual(pages * 258);
      expect(gemini).toBeLessThan(pages * 258 + 100);
    }
    // Before: the scan's base64 at 4 characters a token (133k), over a 128k window.
    expect(charsToTokens(SCAN.length)).toBeGreaterThan(128_000);
  });

  it("counts a PDF whose pages are hidden (compressed object streams) by its bytes", () => {
    const hidden = pdf(5, "", 80_000, "/Kind /Sheet");
    const bytes = (hidden.length * 3) / 4;
    for (const estimate of Object.values(estimates(hidden))) {
      expect(estimate).toBeGreaterThanOrEqual(bytes / 64);
      expect(estimate).toBeLessThan(bytes / 64 + 100);
    }
  });

  it("counts a file of another type, or data that is no base64, as its text", () => {
    const docx = Buffer.from(`PK\u0003\u0004${"word/document.xml ".repeat(200)}`).toString(
      "base64",
    );
    const estimate = estimateTokens(fromResponsesInput([ASK.responses(docx)]));
    expect(estimate).toBeGreaterThanOrEqual(charsToTokens(url(docx).length));
    const words = "%PDF- is not base64, /Type /Page neither.";
    expect(estimateTokens(fromModelMessages([ASK.aiSdk(words)]))).toBeLessThan(100);
  });

  it("reads a hostile PDF in time linear in its bytes", () => {
    const spaces = Buffer.from(`%PDF-1.7\n/Type${" ".repeat(3_000_000)}/Pager`).toString("base64");
    const started = performance.now();
    const estimate = estimateTokens(fromAnthropicMessages([ASK.anthropic(spaces)]));
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(estimate).toBeLessThan(charsToTokens(spaces.length) / 10);
  });
});

describe("a conversation holding a user's PDF", () => {
  const window = { contextLimit: 128_000 };
  const usage = 5 * 1_600 + 12_000;

  it("is not compacted by any one-call helper under a generous window", async () => {
    const chat = HISTORY.flatMap(([question, answer]) => [
      { role: "user" as const, content: question! },
      { role: "assistant" as const, content: answer! },
    ]);
    const gemini = chat.map(({ role, content }) => ({
      role: role === "user" ? "user" : "model",
      parts: [{ text: content }],
    }));
    type Options = { contextLimit: number; contextUsed?: number };
    const helpers: [
      string,
      (options: Options) => Promise<{ compacted: boolean; messages: unknown }>,
    ][] = [
      ["anthropic", (options) => compactAnthropicMessages([...chat, ASK.anthropic(SCAN)], options)],
      ["chat", (options) => compactChatMessages([...chat, ASK.chat(SCAN)], options)],
      ["responses", (options) => compactResponsesInput([...chat, ASK.responses(SCAN)], options)],
      ["aiSdk", (options) => compactModelMessages([...chat, ASK.aiSdk(SCAN)], options)],
      ["gemini", (options) => compactGeminiContents([...gemini, ASK.gemini(SCAN)], options)],
    ];
    for (const [format, helper] of helpers) {
      // Without a usage (the estimate alone), and with the API's.
      for (const options of [window, { ...window, contextUsed: usage }]) {
        const { compacted, messages } = await helper(options);
        expect([format, compacted]).toEqual([format, false]);
        expect(JSON.stringify(messages)).toContain(SCAN);
      }
    }
  });

  it("keeps the file in a session while the API's usage says it fits", async () => {
    const session = new AgentSession(window);
    for (const [question, answer] of HISTORY) {
      session.addUserText(question!);
      session.addAssistant([{ type: "text", text: answer! }]);
    }
    session.append(...fromAnthropicMessages([ASK.anthropic(SCAN)]));
    for (let request = 1; request <= 4; request += 1) {
      const report = await session.maybeCompact();
      expect(report.compacted).toBe(false);
      session.addAssistant([{ type: "text", text: `Answer ${request}: ${"w".repeat(2_000)}` }]);
      session.recordUsage({ inputTokens: usage + 600 * request, outputTokens: 500 });
      session.addUserText(`Question ${request + 1}?`);
    }
  });
});
