import { jsonLength } from "../internal/json-length.js";
import type { JsonObject, JsonValue } from "./message.js";

/**
 * Tokens a second of audio takes by the local estimate: the highest rate a provider documents.
 * Gemini counts 32 a second (ai.google.dev/gemini-api/docs/audio; Vertex AI 25), OpenAI 10 a
 * second of a user's audio and 20 of the model's own (the Realtime API's cost guide).
 */
export const AUDIO_TOKENS_PER_SECOND = 32;

/**
 * Bytes a second of uncompressed audio holds at the lowest rate plausible: 8 kHz, 8 bits, mono
 * (telephony's G.711 in a WAV). Fewer bytes a second would make the same data longer: the
 * lowest rate gives the longest duration, so the estimate stays at or above what is counted.
 */
const UNCOMPRESSED_BYTES_PER_SECOND = 8_000;

/**
 * Bytes a second of compressed audio (MP3, AAC, Opus, Vorbis, FLAC, WebM, …) and of a format
 * not known, at the lowest rate plausible: 8 kbps, MP3's lowest bitrate and at or below a voice
 * note's (a messenger's Opus notes run at 10 to 24 kbps).
 */
const COMPRESSED_BYTES_PER_SECOND = 1_000;

/**
 * Tokens counted for audio a message holds no bytes of (a URL, a file id, Gemini's `fileData`):
 * a minute's worth, as an image is counted at a flat rate. The provider's usage corrects it.
 */
export const AUDIO_REFERENCE_TOKENS = 60 * AUDIO_TOKENS_PER_SECOND;

/**
 * Formats of uncompressed audio (Chat Completions' `format`, a media type's subtype, lower case):
 * WAV, AIFF, PCM (`L16`, `pcm16`), G.711 (`basic`, `pcmu`, `g711_ulaw`, …).
 */
const UNCOMPRESSED = /^(x-|vnd\.)?(wave?|aiff?|pcm(16|u|a)?|l8|l16|basic|g711_[ua]law)$/;

/** A scheme at the start of a text (`https:`, `gs:`, `data:`): base64 holds no colon. */
const SCHEME = /^[a-z][a-z0-9+.-]{0,31}:/i;

/** Audio a block carries: its base64 data (`undefined`: a reference), format, and holder. */
type FoundAudio = [data: string | undefined, format: string, holder: string | undefined];

function isAudioType(value: JsonValue | undefined): value is string {
  return typeof value === "string" && value.slice(0, 6).toLowerCase() === "audio/";
}

function objectAt(block: JsonObject, key: string): JsonObject | undefined {
  const value = block[key];
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
}

/**
 * The audio `block` (a provider's part, carried whole) holds, in each shape the adapters carry:
 * Chat Completions' and the Responses API's `input_audio` (also as LangChain passes it), Gemini's
 * `inlineData` and `fileData` of an `audio/*` type, the AI SDK's `file` (and a tool output's
 * `media`) of an `audio/*` media type, LangChain's `audio` block. `undefined` for any other
 * block, or one whose data is not a string (it is counted as its JSON).
 */
function audioIn(block: JsonObject): FoundAudio | undefined {
  const input = block["type"] === "input_audio" ? objectAt(block, "input_audio") : undefined;
  if (input !== undefined) return found(input["data"], input["format"], "input_audio");
  const inline = objectAt(block, "inlineData");
  if (inline !== undefined)
    return isAudioType(inline["mimeType"])
      ? found(inline["data"], inline["mimeType"], "inlineData")
      : undefined;
  const file = objectAt(block, "fileData");
  if (file !== undefined)
    return isAudioType(file["mimeType"]) ? [undefined, "", undefined] : undefined;
  const mediaType = block["mediaType"] ?? block["mimeType"] ?? block["mime_type"];
  return isAudioType(mediaType) || block["type"] === "audio"
    ? found(block["data"], mediaType)
    : undefined;
}

function found(
  data: JsonValue | undefined,
  format: JsonValue | undefined,
  holder?: string,
): FoundAudio | undefined {
  if (data !== undefined && typeof data !== "string") return undefined;
  // A URL in place of the bytes (the AI SDK's `URL`, an address as text) is a reference.
  const bytes =
    data === undefined || (SCHEME.test(data) && !data.startsWith("data:")) ? undefined : data;
  return [bytes, typeof format === "string" ? format.toLowerCase() : "", holder];
}

/** What the local estimate counts of a block holding media (audio, or inline data). */
export interface MediaMeasure {
  /** Tokens of the media itself: audio by its duration (or {@link AUDIO_REFERENCE_TOKENS}), inline data by its bytes. */
  tokens: number;
  /** Characters of the block's JSON besides the media's data (its framing, counted as text). */
  otherLength: number;
}

/**
 * Measures the audio a provider's block holds (see `audioIn` for the shapes): its duration is
 * its bytes (base64 length × 3/4, no decoding) over the lowest byte rate plausible for its
 * format (8,000 a second uncompressed, 1,000 compressed or unknown), counted at
 * {@link AUDIO_TOKENS_PER_SECOND}; audio without bytes counts {@link AUDIO_REFERENCE_TOKENS}.
 * `undefined` when the block holds no audio.
 */
export function measureAudio(block: JsonObject): MediaMeasure | undefined {
  const audio = audioIn(block);
  if (audio === undefined) return undefined;
  const [data, format, holder] = audio;
  if (data === undefined) return { tokens: AUDIO_REFERENCE_TOKENS, otherLength: jsonLength(block) };
  // The subtype of a media type (`audio/L16;rate=24000`: `l16`), or the format itself.
  const subtype = format
    .slice(format.indexOf("/") + 1)
    .split(";")[0]!
    .trim();
  const rate = UNCOMPRESSED.test(subtype)
    ? UNCOMPRESSED_BYTES_PER_SECOND
    : COMPRESSED_BYTES_PER_SECOND;
  // A `data:` URL's header (a few dozen characters) is counted as bytes too.
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  const bytes = Math.floor((data.length * 3) / 4) - padding;
  const emptied =
    holder === undefined
      ? { ...block, data: "" }
      : { ...block, [holder]: { ...objectAt(block, holder), data: "" } };
  return {
    tokens: Math.ceil((bytes * AUDIO_TOKENS_PER_SECOND) / rate),
    otherLength: jsonLength(emptied),
  };
}

/**
 * Decoded bytes per token of media other than audio sent inline as base64 (Gemini's
 * `inlineData`: an image, a video; a PDF whose pages are not counted): a provider counts them by
 * page or frame, never by their text; at 4 characters a token a 400 kB PDF was 100k tokens, a
 * usage of 3k was not trusted, and the user's file went. 64 bytes a token is at or above the
 * count of a PDF page of 16 kB.
 */
const MEDIA_BYTES_PER_TOKEN = 64;

/**
 * Tokens a PDF page takes by the local estimate, where a document block's pages are counted
 * (`pdfPages`): the low end of what Claude documents, 1,500 to 3,000 a page (each page's text
 * and its image; a scanned page some 1,600), and near what OpenAI counts (each page's text and
 * an image of it). The low end, since a usage under half the estimate is not trusted (the
 * user's file would be folded away on a usage that says it fits), while a higher real count is
 * learned from the first usage, as the text's is.
 */
export const PDF_PAGE_TOKENS = 1_500;

/** The same for Gemini's `inlineData`: 258 tokens a page (ai.google.dev's document processing guide). */
const GEMINI_PDF_PAGE_TOKENS = 258;

/**
 * A page object of a PDF (`/Type /Page`, not `/Pages`): one literal, spaces, another literal,
 * so a scan linear in the bytes.
 */
const PAGE_OBJECT = /\/Type\s*\/Page(?![A-Za-z])/g;

/** Base64 characters of a PDF's first 1,024 bytes, where its `%PDF-` header may sit. */
const HEADER_BASE64 = 1_368;

/**
 * The pages of the PDF `data` holds (base64, or a `data:` URL of it) by its page objects, one
 * decoding and one linear scan; `0` when it hides them (in compressed object streams: PDF 1.5's
 * writers, LaTeX's), `undefined` when `data` is no PDF (only its head is decoded then).
 */
function pdfPages(data: string): number | undefined {
  const base64 = data.startsWith("data:") ? data.slice(data.indexOf(",") + 1) : data;
  try {
    if (!atob(base64.slice(0, HEADER_BASE64)).includes("%PDF-")) return undefined;
    return atob(base64).match(PAGE_OBJECT)?.length ?? 0;
  } catch {
    return undefined; // Not base64: no file.
  }
}

/**
 * The file data of a document block, in each shape the adapters carry: Anthropic's `document`
 * (`source.data`), Chat Completions' `file` (`file.file_data`), the Responses API's `input_file`
 * (`file_data`), the AI SDK's and LangChain's `file` (`data`).
 */
function documentData(block: JsonObject): JsonValue | undefined {
  return (
    objectAt(block, "source")?.["data"] ??
    objectAt(block, "file")?.["file_data"] ??
    block["file_data"] ??
    block["data"]
  );
}

/**
 * What the local estimate counts of media a provider's block carries, where that is not its
 * JSON: audio by its duration ({@link measureAudio}); a PDF (a document block's file, Gemini's
 * `inlineData`) by its pages where its page objects can be counted ({@link PDF_PAGE_TOKENS}
 * each, 258 for Gemini); other media sent inline as base64 (Gemini's `inlineData`), and a PDF
 * whose pages are hidden, by its bytes, {@link MEDIA_BYTES_PER_TOKEN} a token (a scan's 200 kB
 * page comes near what it costs; a text page's 5 kB under it, learned from the first usage).
 * Base64 counted as text was 4 times the bytes of a scan at 1,600 tokens a page: 667k tokens
 * for a 2 MB scan of 10 pages. `undefined` for any other block (a file of another type too).
 */
export function measureMedia(block: JsonObject): MediaMeasure | undefined {
  const audio = measureAudio(block);
  if (audio !== undefined) return audio;
  const inline = objectAt(block, "inlineData")?.["data"];
  const data = inline ?? documentData(block);
  if (typeof data !== "string") return undefined;
  const pages = pdfPages(data);
  if (pages === undefined && inline === undefined) return undefined;
  return {
    tokens: pages
      ? pages * (inline === undefined ? PDF_PAGE_TOKENS : GEMINI_PDF_PAGE_TOKENS)
      : Math.ceil((data.length * 3) / 4 / MEDIA_BYTES_PER_TOKEN),
    otherLength: jsonLength(block) - data.length,
  };
}
