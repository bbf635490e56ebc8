import OpenAI from "openai";
import type {
  ChatCompletionContentPartInputAudio,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ChatCompletionsServer,
  chatMessagesProblem,
} from "../../test/support/chat-completions-server.js";
import { compactChatMessages } from "./compact-messages.js";

// A user's voice note (an `input_audio` part) was counted as its base64 text: a 10-second WAV
// came to 160,000 tokens, and the one-call helper kept 3 of 41 messages in a 128k window to
// make room for it (review 56d, left #1). The loopback API counts the note as OpenAI does, 10
// tokens a second from its WAV header; the estimate counts it by duration at or above that.

/** A WAV of `seconds` of silence, 24 kHz 16-bit mono (a voice app's recording), as base64. */
function wav(seconds: number): string {
  const rate = 24_000;
  const data = rate * 2 * seconds;
  const bytes = Buffer.alloc(44 + data);
  bytes.write("RIFF", 0, "latin1");
  bytes.writeUInt32LE(36 + data, 4);
  bytes.write("WAVEfmt ", 8, "latin1");
  bytes.writeUInt32LE(16, 16);
  bytes.writeUInt16LE(1, 20); // PCM
  bytes.writeUInt16LE(1, 22); // mono
  bytes.writeUInt32LE(rate, 24);
  bytes.writeUInt32LE(rate * 2, 28); // byte rate
  bytes.writeUInt16LE(2, 32);
  bytes.writeUInt16LE(16, 34);
  bytes.write("data", 36, "latin1");
  bytes.writeUInt32LE(data, 40);
  return bytes.toString("base64");
}

const MODEL = "gpt-4o-audio-preview";
const rules = () => ({ reasoning: "ignored" as const, issuedReasoning: new Map<string, string>() });
const note = (data: string): ChatCompletionMessageParam => ({
  role: "user",
  content: [{ type: "input_audio", input_audio: { data, format: "wav" } }],
});
/** The audio data each message of `messages` holds. */
const audioIn = (messages: readonly ChatCompletionMessageParam[]) =>
  messages.flatMap((message) =>
    Array.isArray(message.content)
      ? message.content
          .filter(
            (part): part is ChatCompletionContentPartInputAudio => part.type === "input_audio",
          )
          .map((part) => part.input_audio.data)
      : [],
  );

describe("a user's voice note", () => {
  let server: ChatCompletionsServer;
  let client: OpenAI;
  beforeAll(async () => {
    server = await ChatCompletionsServer.start(() => ({ content: "Got it." }));
    client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 });
  });
  afterAll(() => server.close());

  it("leaves the history before it in a 128k window, counted at or above what the API counts", async () => {
    server.contextWindow = 128_000;
    const history: ChatCompletionMessageParam[] = Array.from({ length: 20 }, (_, index) => [
      { role: "user" as const, content: `question ${index} ${"w".repeat(400)}` },
      { role: "assistant" as const, content: `answer ${index} ${"w".repeat(400)}` },
    ]).flat();
    const voice = note(wav(10));
    const { messages, compacted, contextUsed } = await compactChatMessages([...history, voice], {
      contextLimit: 128_000,
    });
    expect(compacted).toBe(false);
    expect(messages).toHaveLength(41);
    expect(audioIn(messages)).toEqual(audioIn([voice]));
    const completion = await client.chat.completions.create({ model: MODEL, messages });
    const usage = completion.usage!;
    expect(usage.prompt_tokens_details?.audio_tokens).toBe(100);
    expect(contextUsed).toBeGreaterThanOrEqual(usage.prompt_tokens);
    // Within a few times what the API counts, not 50 times.
    expect(contextUsed).toBeLessThan(usage.prompt_tokens * 2);
  });

  it("in a voice app's long run: every request fits and holds each note it keeps whole", async () => {
    server.contextWindow = 16_000;
    const sent = server.requests.length;
    // 10 to 12 seconds each: about 2,000 tokens a note by the estimate, 100 to 120 by the API.
    const notes = Array.from({ length: 16 }, (_, index) => wav(10 + (index % 3)));
    const history: ChatCompletionMessageParam[] = [];
    for (const [index, data] of notes.entries()) {
      history.push(note(data));
      const { messages, compacted } = await compactChatMessages(history, { contextLimit: 16_000 });
      // Five notes are under the threshold (72% of the window): nothing goes.
      if (index < 5) {
        expect(compacted).toBe(false);
        expect(messages).toHaveLength(history.length);
      }
      expect(chatMessagesProblem(messages, rules())).toBeUndefined();
      // Refused over the window by the loopback API.
      const completion = await client.chat.completions.create({ model: MODEL, messages });
      // Never a note cut: each one sent is one the user recorded, the newest always.
      const kept = audioIn(messages);
      for (const audio of kept) expect(notes).toContain(audio);
      expect(kept.at(-1)).toBe(data);
      history.push(completion.choices[0]!.message);
    }
    expect(server.refusals).toEqual([]);
    expect(server.requests.length - sent).toBe(notes.length);
  });
});
