import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ChatCompletionsServer,
  chatMessagesProblem,
} from "../../test/support/chat-completions-server.js";
import { ValidationError } from "../core/errors.js";
import type { Message } from "../core/message.js";
import { estimateTokens } from "../core/message-memo.js";
import { charsToTokens } from "../core/tokens.js";
import { AgentSession } from "../index.js";
import { MemoryArchive } from "../session/archive.js";
import { appendChatCompletion } from "./chat-completion.js";
import { fromChatMessages } from "./chat-messages-in.js";
import { toChatMessages } from "./chat-messages-out.js";
import { compactChatMessages } from "./compact-messages.js";

// An audio reply (`modalities: ["text", "audio"]`) comes with its audio as base64 `data`,
// hundreds of kilobytes; a request takes a previous audio response back by its id alone
// (the SDK's `ChatCompletionAssistantMessageParam.Audio`). A history that keeps the reply as
// it came (as the SDK's examples push `completion.choices[0].message`) went back whole and
// uncounted (review 54a, 54d #6).

const MODEL = "gpt-4o-audio-preview";
const TRANSCRIPT = "Hello there! The answer is 42.";
const DATA = `UklGR${"A".repeat(40_000)}`;
const replyAudio = (id: string) => ({
  id,
  data: DATA,
  expires_at: 1_729_018_505,
  transcript: TRANSCRIPT,
});
const rules = () => ({ reasoning: "ignored" as const, issuedReasoning: new Map<string, string>() });

describe("an audio reply read from a stored history", () => {
  let server: ChatCompletionsServer;
  let client: OpenAI;
  beforeAll(async () => {
    let replies = 0;
    // The window is far below one reply's data (10,000 tokens as the server counts it).
    server = await ChatCompletionsServer.start(
      () => ({ content: null, fields: { audio: replyAudio(`audio_${++replies}`) } }),
      { contextWindow: 2_000 },
    );
    client = new OpenAI({ baseURL: server.url, apiKey: "test", maxRetries: 0 });
  });
  afterAll(() => server.close());

  const speak = (messages: ChatCompletionMessageParam[]) =>
    client.chat.completions.create({
      model: MODEL,
      modalities: ["text", "audio"],
      audio: { voice: "alloy", format: "wav" },
      messages,
    });

  it("goes back as the request takes it, its transcript as its text, and is counted", async () => {
    const history: ChatCompletionMessageParam[] = [{ role: "user", content: "Say hello" }];
    for (let turn = 0; turn < 3; turn += 1) {
      // Each request is the history through the helper (from the second on, refused without the fix).
      const completion = await speak(
        (await compactChatMessages(history, { contextLimit: 2_000 })).messages,
      );
      // Kept as it came, as the SDK's examples keep a reply.
      history.push(completion.choices[0]!.message, { role: "user", content: `And again ${turn}?` });
    }
    expect(JSON.stringify(history)).toContain(DATA);

    const { messages, contextUsed } = await compactChatMessages(history, { contextLimit: 2_000 });
    expect(messages[1]).toEqual({
      role: "assistant",
      content: TRANSCRIPT,
      refusal: null,
      annotations: [],
      audio: { id: "audio_1" },
    });
    expect(JSON.stringify(messages)).not.toContain("UklGR");
    // What is sent is counted: the transcripts, and no data to miss.
    expect(contextUsed).toBeGreaterThanOrEqual(3 * charsToTokens(TRANSCRIPT.length));
    await expect(speak(messages)).resolves.toBeDefined();

    // The conversion alone writes the same.
    const converted = toChatMessages(fromChatMessages(history));
    expect(converted).toEqual(messages);
    expect(chatMessagesProblem(converted, rules())).toBeUndefined();
    // Sent whole, the stored history is refused; its data alone is, as a field the API does
    // not take.
    expect(chatMessagesProblem(history, rules())).toBeDefined();
    const withContent = history.map((message) =>
      message.role === "assistant" ? { ...message, content: TRANSCRIPT } : message,
    );
    expect(chatMessagesProblem(withContent, rules())?.message).toBe(
      "Unknown parameter: 'messages[1].audio.data'.",
    );
  });

  it("is appended by appendChatCompletion the same way, its transcript kept", async () => {
    const session = new AgentSession({ contextLimit: 2_000 });
    session.addUserText("Say hello");
    const before = session.contextUsed;
    appendChatCompletion(session, await speak(toChatMessages(session.messages)));
    session.addUserText("And again?");
    const sent = toChatMessages(session.messages);
    expect(sent[1]).toMatchObject({ content: TRANSCRIPT, audio: { id: expect.any(String) } });
    expect(Object.keys(sent[1]!.role === "assistant" ? (sent[1]!.audio ?? {}) : {})).toEqual([
      "id",
    ]);
    expect(estimateTokens(session.messages)).toBeGreaterThan(
      before + charsToTokens(TRANSCRIPT.length),
    );
    await expect(speak(sent)).resolves.toBeDefined();
  });
});

describe("an assistant message's audio", () => {
  const read = (assistant: Record<string, unknown>) =>
    toChatMessages(fromChatMessages([{ role: "user", content: "hi" }, assistant]))[1];

  it("keeps its content over the transcript, and the transcript beside tool calls", () => {
    const audio = replyAudio("audio_a");
    expect(read({ role: "assistant", content: "Hi!", audio })).toEqual({
      role: "assistant",
      content: "Hi!",
      audio: { id: "audio_a" },
    });
    const call = { id: "c1", type: "function", function: { name: "f", arguments: "{}" } };
    expect(read({ role: "assistant", content: null, audio, tool_calls: [call] })).toEqual({
      role: "assistant",
      content: TRANSCRIPT,
      audio: { id: "audio_a" },
      tool_calls: [call],
    });
    // The request's own form goes as it came.
    const param = [
      { role: "user", content: "hi" },
      { role: "assistant", content: "Hi!", audio: { id: "audio_a" } },
    ];
    expect(toChatMessages(fromChatMessages(param))).toEqual(param);
  });

  it("goes back with its content null or absent, as the reply gave it (review 59f F7)", async () => {
    for (const reply of [
      { role: "assistant", content: null, audio: { id: "audio_1" } },
      { role: "assistant", audio: { id: "audio_1" } },
    ]) {
      const history = [
        { role: "user", content: "Say hi." },
        reply,
        { role: "user", content: "Again." },
      ] as ChatCompletionMessageParam[];
      expect(toChatMessages(fromChatMessages(history))).toEqual(history);
      expect(chatMessagesProblem(history, rules())).toBeUndefined();
      // Far below the threshold: the input itself, nothing compacted.
      const result = await compactChatMessages(history, { contextLimit: 1_000_000 });
      expect(result.messages).toBe(history);
      expect(result.compacted).toBe(false);
    }
  });

  it("leaves out an audio no request can refer to, and names one that is no audio", () => {
    const { id: _, ...withoutId } = replyAudio("x");
    expect(read({ role: "assistant", content: null, audio: withoutId })).toEqual({
      role: "assistant",
      content: TRANSCRIPT,
    });
    const bad = (audio: unknown) => () =>
      fromChatMessages([
        { role: "user", content: "hi" },
        { role: "assistant", content: "", audio },
      ]);
    expect(bad("audio_a")).toThrow(ValidationError);
    expect(bad("audio_a")).toThrow("[1].audio: must be an object (with a string id) or null");
    expect(bad({ id: 7 })).toThrow("[1].audio.id: must be a string");
    const session = new AgentSession({ contextLimit: 2_000 });
    session.addUserText("hi");
    const reply = { role: "assistant", content: null, audio: 5 };
    expect(() => appendChatCompletion(session, { choices: [{ message: reply }] })).toThrow(
      "choices[0].message.audio",
    );
  });

  it("kept with its data by an earlier version, goes back as the request takes it", () => {
    const kept: Message = {
      id: "m2",
      sessionId: "s",
      turnId: { owner: "u", number: 1 },
      createdAt: new Date(0),
      role: "assistant",
      content: [
        {
          type: "text",
          text: "",
          extra: {
            chatCompletions: { message: { audio: replyAudio("audio_k") }, content: "null" },
          },
        },
      ],
    };
    const user: Message = {
      ...kept,
      id: "m1",
      role: "user",
      content: [{ type: "text", text: "hi" }],
    };
    expect(toChatMessages([user, kept])[1]).toEqual({
      role: "assistant",
      content: TRANSCRIPT,
      audio: { id: "audio_k" },
    });
  });
});

describe("a user's input_audio part", () => {
  const audioPart = {
    type: "input_audio",
    // 1.5 MB of WAV: over three minutes at the lowest byte rate a WAV is read at (8,000 a second).
    input_audio: { data: "U".repeat(2_000_000), format: "wav" },
  };
  const voice = { role: "user", content: [{ type: "text", text: "listen" }, audioPart] };

  it("is counted, and kept whole or removed whole (recallable), never cut", async () => {
    const ours = fromChatMessages([voice]);
    // Counted by its duration (187.5 s at 32 tokens a second), not as 2 MB of text.
    expect(estimateTokens(ours)).toBeGreaterThan(6_000);
    expect(estimateTokens(ours)).toBeLessThan(charsToTokens(2_000_000) / 50);
    const later = Array.from({ length: 4 }, (_, index) => [
      { role: "assistant", content: `a${index}` },
      { role: "user", content: `q${index}` },
    ]).flat();
    const archive = new MemoryArchive();
    const older = await compactChatMessages([voice, ...later] as ChatCompletionMessageParam[], {
      contextLimit: 4_000,
      archive,
    });
    const sent = JSON.stringify(older.messages);
    expect(sent).not.toContain("UUUU");
    expect(sent).toMatch(/\[recall [^\]]+\]/);
    expect(chatMessagesProblem(older.messages, rules())).toBeUndefined();
    // The newest message is the request itself: sent whole, however large.
    const newest = [
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      voice,
    ];
    const kept = await compactChatMessages(newest as ChatCompletionMessageParam[], {
      contextLimit: 4_000,
    });
    expect(JSON.stringify(kept.messages)).toContain(audioPart.input_audio.data);
    expect(kept.contextUsed).toBeGreaterThan(6_000);
    expect(chatMessagesProblem(kept.messages, rules())).toBeUndefined();
  });
});
