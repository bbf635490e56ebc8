import { HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { compactModelMessages } from "../ai-sdk/compact-model-messages.js";
import { fromModelMessages } from "../ai-sdk/model-messages.js";
import { fromChatMessages } from "../chat-completions/chat-messages-in.js";
import { compactGeminiContents } from "../gemini/compact-contents.js";
import { fromGeminiContents } from "../gemini/contents-in.js";
import { fromLangChainMessages } from "../langchain/messages-in.js";
import { compactResponsesInput } from "../openai/compact-input.js";
import { fromResponsesInput } from "../openai/responses-input.js";
import { AgentSession } from "../session/agent-session.js";
import { AUDIO_REFERENCE_TOKENS, AUDIO_TOKENS_PER_SECOND, measureAudio } from "./audio-tokens.js";
import type { ContentBlock, JsonObject, Message } from "./message.js";
import { estimateEdited, estimateTokens } from "./message-memo.js";
import { charsToTokens, estimateBlockTokens, estimateContentTokens } from "./tokens.js";

// A voice note's base64 was counted as text: a 10-second WAV (640,000 characters) came to
// 160,000 tokens where Gemini counts 320 and OpenAI about 100 (review 56d, left #1). Audio is
// counted by its duration now: its bytes over the lowest byte rate its format is plausibly
// sent at, at 32 tokens a second (Gemini's documented rate, the highest found).

const SECONDS = 10;
/** `seconds` of audio at `bytesPerSecond`, as base64 (its content does not matter: no decoding). */
const audio = (seconds: number, bytesPerSecond: number) =>
  Buffer.alloc(seconds * bytesPerSecond, 7).toString("base64");
/** 24 kHz 16-bit mono: what a browser or a phone app records a voice note at. */
const WAV = audio(SECONDS, 48_000);
/** 128 kbps. */
const MP3 = audio(SECONDS, 16_000);
/** What the estimate counts of 480,000 bytes of WAV: read at 8,000 bytes a second. */
const WAV_TOKENS = (480_000 / 8_000) * AUDIO_TOKENS_PER_SECOND;
/** Of 160,000 bytes of MP3: read at 1,000 bytes a second (8 kbps). */
const MP3_TOKENS = (160_000 / 1_000) * AUDIO_TOKENS_PER_SECOND;

const opaque = (block: JsonObject): ContentBlock => ({ type: "opaque", block });
const audioOf = (messages: readonly Message[]) => estimateTokens(messages);

/** The estimate of one message holding the note is its audio's tokens and some framing. */
function expectCountedByDuration(messages: readonly Message[], tokens: number, text: string): void {
  const estimate = audioOf(messages);
  expect(estimate).toBeGreaterThanOrEqual(tokens);
  expect(estimate).toBeLessThan(tokens + 80);
  // Before: the base64 at 4 characters a token.
  expect(estimate).toBeLessThan(charsToTokens(text.length) / 10);
}

describe("the local estimate of audio", () => {
  it("counts a Chat Completions input_audio part by its duration", () => {
    const wav = fromChatMessages([
      {
        role: "user",
        content: [{ type: "input_audio", input_audio: { data: WAV, format: "wav" } }],
      },
    ]);
    expectCountedByDuration(wav, WAV_TOKENS, WAV);
    const mp3 = fromChatMessages([
      {
        role: "user",
        content: [
          { type: "text", text: "what did I say?" },
          { type: "input_audio", input_audio: { data: MP3, format: "mp3" } },
        ],
      },
    ]);
    expectCountedByDuration(mp3, MP3_TOKENS, MP3);
  });

  it("counts a Responses API input_audio part by its duration, the item's fields as text", () => {
    const messages = fromResponsesInput([
      {
        type: "message",
        role: "user",
        content: [{ type: "input_audio", input_audio: { data: WAV, format: "wav" } }],
      },
    ] as never);
    expectCountedByDuration(messages, WAV_TOKENS, WAV);
  });

  it("counts Gemini inlineData of an audio type by its duration, fileData as a minute", () => {
    const inline = fromGeminiContents([
      { role: "user", parts: [{ inlineData: { mimeType: "audio/wav", data: WAV } }] },
    ]);
    expectCountedByDuration(inline, WAV_TOKENS, WAV);
    const raw = fromGeminiContents([
      {
        role: "user",
        parts: [{ inlineData: { mimeType: "audio/L16;codec=pcm;rate=24000", data: WAV } }],
      },
    ]);
    expectCountedByDuration(raw, WAV_TOKENS, WAV);
    const ogg = fromGeminiContents([
      { role: "user", parts: [{ inlineData: { mimeType: "audio/ogg", data: MP3 } }] },
    ]);
    expectCountedByDuration(ogg, MP3_TOKENS, MP3);
    const file = fromGeminiContents([
      {
        role: "user",
        parts: [{ fileData: { mimeType: "audio/mp3", fileUri: "https://example.com/files/abc" } }],
      },
    ]);
    expect(audioOf(file)).toBeGreaterThanOrEqual(AUDIO_REFERENCE_TOKENS);
    expect(audioOf(file)).toBeLessThan(AUDIO_REFERENCE_TOKENS + 40);
  });

  it("counts audio a Gemini function response returns by its duration", () => {
    const messages = fromGeminiContents([
      { role: "user", parts: [{ text: "record it" }] },
      { role: "model", parts: [{ functionCall: { id: "c1", name: "record", args: {} } }] },
      {
        role: "user",
        parts: [
          {
            functionResponse: {
              id: "c1",
              name: "record",
              response: { output: "done" },
              parts: [{ inlineData: { mimeType: "audio/wav", data: WAV } }],
            },
          },
        ],
      },
    ]);
    const result = estimateTokens(messages.slice(2));
    expect(result).toBeGreaterThanOrEqual(WAV_TOKENS);
    expect(result).toBeLessThan(WAV_TOKENS + 80);
  });

  it("counts an AI SDK file part of an audio type by its duration, whatever holds its data", () => {
    const file = (data: unknown, mediaType = "audio/wav") =>
      fromModelMessages([{ role: "user", content: [{ type: "file", mediaType, data }] }] as never);
    expectCountedByDuration(file(WAV), WAV_TOKENS, WAV);
    expectCountedByDuration(file(Buffer.from(WAV, "base64")), WAV_TOKENS, WAV);
    expectCountedByDuration(file(new Uint8Array(Buffer.from(WAV, "base64"))), WAV_TOKENS, WAV);
    expectCountedByDuration(file(`data:audio/wav;base64,${WAV}`), WAV_TOKENS, WAV);
    expectCountedByDuration(file(MP3, "audio/mpeg"), MP3_TOKENS, MP3);
    expectCountedByDuration(file(MP3, "audio/webm;codecs=opus"), MP3_TOKENS, MP3);
    // No bytes: a minute.
    for (const reference of [
      new URL("https://example.com/note.mp3"),
      "https://example.com/n.mp3",
    ]) {
      const estimate = audioOf(file(reference, "audio/mpeg"));
      expect(estimate).toBeGreaterThanOrEqual(AUDIO_REFERENCE_TOKENS);
      expect(estimate).toBeLessThan(AUDIO_REFERENCE_TOKENS + 40);
    }
  });

  it("counts audio an AI SDK tool output returns (a media part) by its duration", () => {
    const messages = fromModelMessages([
      { role: "user", content: "record it" },
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "c1", toolName: "record", input: {} }],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c1",
            toolName: "record",
            output: {
              type: "content",
              value: [{ type: "media", mediaType: "audio/wav", data: WAV }],
            },
          },
        ],
      },
    ] as never);
    const result = estimateTokens(messages.slice(2));
    expect(result).toBeGreaterThanOrEqual(WAV_TOKENS);
    expect(result).toBeLessThan(WAV_TOKENS + 80);
  });

  it("counts a LangChain audio block by its duration, one by URL as a minute", () => {
    const [base64] = fromLangChainMessages([
      new HumanMessage({ content: [{ type: "audio", mimeType: "audio/wav", data: WAV }] }),
    ]);
    expectCountedByDuration([base64!], WAV_TOKENS, WAV);
    const [legacy] = fromLangChainMessages([
      new HumanMessage({
        content: [{ type: "audio", source_type: "base64", mime_type: "audio/mpeg", data: MP3 }],
      }),
    ]);
    expectCountedByDuration([legacy!], MP3_TOKENS, MP3);
    const [url] = fromLangChainMessages([
      new HumanMessage({ content: [{ type: "audio", url: "https://example.com/note.mp3" }] }),
    ]);
    expect(audioOf([url!])).toBeGreaterThanOrEqual(AUDIO_REFERENCE_TOKENS);
  });

  it("stays at or above the provider's count at the lowest rates each format is sent at", () => {
    // G.711 telephony in a WAV (8,000 bytes a second) and an 8 kbps MP3: 32 tokens a second.
    const seconds = 60;
    for (const [format, rate] of [
      ["wav", 8_000],
      ["mp3", 1_000],
      ["x-unknown", 1_000],
    ] as const) {
      const block = { type: "input_audio", input_audio: { data: audio(seconds, rate), format } };
      expect(measureAudio(block)!.tokens).toBeGreaterThanOrEqual(seconds * AUDIO_TOKENS_PER_SECOND);
    }
    // A format not given counts at the lowest rate of all.
    const bare = measureAudio({ type: "audio", data: audio(seconds, 1_000) })!;
    expect(bare.tokens).toBe(seconds * AUDIO_TOKENS_PER_SECOND);
  });

  it("counts the block's other fields as text, and its data as nothing more", () => {
    const transcript = "t".repeat(4_000);
    const block = {
      type: "input_audio",
      input_audio: { data: audio(1, 8_000), format: "wav", transcript },
      "chatCompletions:part": true,
    };
    const measure = measureAudio(block)!;
    expect(measure.tokens).toBe(AUDIO_TOKENS_PER_SECOND);
    expect(measure.otherLength).toBe(
      JSON.stringify({ ...block, input_audio: { ...block.input_audio, data: "" } }).length,
    );
    expect(estimateBlockTokens(opaque(block))).toBe(
      4 + AUDIO_TOKENS_PER_SECOND + charsToTokens(measure.otherLength),
    );
  });

  it("leaves other blocks, and audio whose data is no string, to the JSON estimate", () => {
    const broken = { type: "input_audio", input_audio: { data: 5, format: "wav" } };
    const notObject = { type: "input_audio", input_audio: "x" };
    for (const block of [broken, notObject] as JsonObject[]) {
      expect(measureAudio(block)).toBeUndefined();
      expect(estimateBlockTokens(opaque(block))).toBe(
        4 + charsToTokens(JSON.stringify(block).length),
      );
    }
    // A PDF is no audio; with no page object to count, it counts by its bytes too (pdf-tokens.test.ts).
    const pdf = { type: "file", mediaType: "application/pdf", data: "JVBERi0x".repeat(1_000) };
    expect(measureAudio(pdf)).toBeUndefined();
    expect(estimateBlockTokens(opaque(pdf))).toBe(
      4 + charsToTokens(JSON.stringify(pdf).length - pdf.data.length) + Math.ceil(6_000 / 64),
    );
    // Gemini's inline media of another type counts by its bytes, 64 a token (review 57c).
    const data = "iVBOR".repeat(1_000);
    const image = { inlineData: { mimeType: "image/png", data } } as JsonObject;
    expect(measureAudio(image)).toBeUndefined();
    expect(estimateBlockTokens(opaque(image))).toBe(
      4 +
        charsToTokens(JSON.stringify(image).length - data.length) +
        Math.ceil((data.length * 3) / 4 / 64),
    );
  });

  it("adds up block by block, as the memo and the edit estimate rely on", () => {
    const notes = fromChatMessages([
      { role: "user", content: "hello" },
      { role: "assistant", content: "hi" },
      {
        role: "user",
        content: [
          { type: "text", text: "listen" },
          { type: "input_audio", input_audio: { data: WAV, format: "wav" } },
        ],
      },
    ]);
    const total = estimateTokens(notes);
    expect(total).toBe(notes.reduce((sum, m) => sum + estimateContentTokens(m.content), 0));
    const edited = [
      ...notes.slice(0, 2),
      { ...notes[2]!, content: [notes[2]!.content[0]!] } as Message,
    ];
    expect(estimateEdited(notes, total, edited)).toBe(estimateTokens(edited));
    expect(total - estimateTokens(edited)).toBe(estimateBlockTokens(notes[2]!.content[1]!));
  });

  it("is what a session counts, and no clamp cuts the audio", async () => {
    const session = new AgentSession({ contextLimit: 4_000, compactor: false });
    const [voice] = fromChatMessages([
      {
        role: "user",
        content: [
          { type: "text", text: "x".repeat(40_000) },
          { type: "input_audio", input_audio: { data: WAV, format: "wav" } },
        ],
      },
    ]);
    session.append(voice!);
    const kept = session.messages.at(-1)!;
    // The text is clamped to fit; the audio (1,920 tokens: it fits) is kept whole.
    expect(kept.content[1]).toEqual(voice!.content[1]);
    expect((kept.content[0] as { text: string }).text.length).toBeLessThan(40_000);
    expect(session.contextUsed).toBe(estimateTokens(session.messages));
  });
});

describe("the one-call helpers, a voice note after 40 messages in a 128k window", () => {
  const turns = Array.from({ length: 20 }, (_, index) => [
    `question ${index} ${"w".repeat(400)}`,
    `answer ${index} ${"w".repeat(400)}`,
  ]);

  it("compactModelMessages keeps the history (an AI SDK file part)", async () => {
    const history = turns.flatMap(([question, answer]) => [
      { role: "user", content: question },
      { role: "assistant", content: answer },
    ]);
    const voice = { role: "user", content: [{ type: "file", mediaType: "audio/wav", data: WAV }] };
    const result = await compactModelMessages([...history, voice] as never, {
      contextLimit: 128_000,
    });
    expect(result.compacted).toBe(false);
    expect(result.messages).toHaveLength(41);
  });

  it("compactGeminiContents keeps the history (inlineData)", async () => {
    const history = turns.flatMap(([question, answer]) => [
      { role: "user", parts: [{ text: question! }] },
      { role: "model", parts: [{ text: answer! }] },
    ]);
    const voice = { role: "user", parts: [{ inlineData: { mimeType: "audio/wav", data: WAV } }] };
    const result = await compactGeminiContents([...history, voice], { contextLimit: 128_000 });
    expect(result.compacted).toBe(false);
    expect(result.messages).toHaveLength(41);
  });

  it("compactResponsesInput keeps the history (input_audio)", async () => {
    const history = turns.flatMap(([question, answer]) => [
      { role: "user", content: question },
      { role: "assistant", content: answer },
    ]);
    const voice = {
      role: "user",
      content: [{ type: "input_audio", input_audio: { data: WAV, format: "wav" } }],
    };
    const result = await compactResponsesInput([...history, voice] as never, {
      contextLimit: 128_000,
    });
    expect(result.compacted).toBe(false);
    expect(result.messages).toHaveLength(41);
  });
});
