import type { JsonObject, JsonValue } from "../core/message.js";
import { isPlainObject } from "../internal/plain-object.js";
import type { MessageContext } from "./message-blocks.js";

/** An assistant message's `audio` as a request takes it, and what the reply said by it. */
export interface RequestAudio {
  /** `{ id }`, `null`, or `undefined` when the message goes without one. */
  audio: JsonObject | null | undefined;
  /** The reply's `transcript`; `undefined` when it gave none. */
  transcript: string | undefined;
}

/**
 * An assistant message's `audio` as a request takes it back: `{ id }` (the SDK's
 * `ChatCompletionAssistantMessageParam.Audio`, "data about a previous audio response"), as
 * OpenAI reads the audio by its id. A reply's base64 `data` (hundreds of kilobytes a reply),
 * `expires_at` and `transcript` are not part of it; the transcript is handed back to stand as
 * the message's text. An audio without an id (nothing a request can refer to) is left out; one
 * that is neither an object nor `null` is reported when `context` is given.
 */
export function requestAudio(audio: JsonValue | undefined, context?: MessageContext): RequestAudio {
  if (audio === undefined || audio === null) return { audio, transcript: undefined };
  if (!isPlainObject(audio)) {
    context?.issues.push({
      path: [...context.path, "audio"],
      message: "must be an object (with a string id) or null",
    });
    return { audio: undefined, transcript: undefined };
  }
  const { id, transcript } = audio;
  const said = typeof transcript === "string" ? transcript : undefined;
  if (typeof id === "string") return { audio: { id }, transcript: said };
  if (id !== undefined)
    context?.issues.push({ path: [...context.path, "audio", "id"], message: "must be a string" });
  return { audio: undefined, transcript: said };
}

/** Whether a message's `content` says nothing: `null`, absent, `""` or `[]`. */
export function isNoContent(content: JsonValue | undefined): boolean {
  return (
    content === null ||
    content === undefined ||
    content === "" ||
    (Array.isArray(content) && content.length === 0)
  );
}
