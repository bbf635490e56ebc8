/**
 * What the Messages API rules share: the request as JSON (records, messages, blocks), the betas
 * it asks for, and a hash and base64 that need no Node built-in. One set of rules serves the
 * `AnthropicStandIn` of `/testing` (which runs wherever the root entry runs) and the loopback
 * HTTP server of `examples/support/`.
 */

/** A content block as JSON. */
export type Block = Record<string, unknown>;
/** A message as JSON. */
export type WireMessage = { role?: unknown; content?: unknown } & Record<string, unknown>;
/** A request body as JSON (the fields the rules read). */
export type Body = {
  system?: unknown;
  tools?: unknown;
  messages?: unknown;
  thinking?: unknown;
} & Record<string, unknown>;

/** A request as the rules read it: the body as JSON and the betas it was sent with. */
export interface RuleRequest {
  body: unknown;
  betas: readonly string[];
}

/** The betas an `anthropic-beta` header asks for (comma-separated, blanks left out). */
export function betasOf(header: string | undefined): string[] {
  return (header ?? "")
    .split(",")
    .map((value) => value.trim())
    .filter((value) => value !== "");
}

/** An error the API answers with: status, message, and `error.details.error_code`. */
export interface ApiProblem {
  status: number;
  message: string;
  errorType?: string;
  errorCode?: string;
}

/** Whether a value is a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A request body, or an empty one for anything that is not an object. */
export function bodyOf(value: unknown): Body {
  return (isRecord(value) ? value : {}) as Body;
}

/** A request's `messages`, or none. */
export function messagesOf(body: unknown): WireMessage[] {
  const messages = isRecord(body) ? body["messages"] : undefined;
  return Array.isArray(messages) ? (messages as WireMessage[]) : [];
}

/** A message's blocks; a string `content` is one text block, as the model reads it. */
export function blocksOf(message: WireMessage | undefined): unknown[] {
  if (message === undefined) return [];
  if (typeof message.content === "string") return [{ type: "text", text: message.content }];
  return Array.isArray(message.content) ? message.content : [];
}

/**
 * A 128-bit hash of a text as 32 hex digits: four lanes of a multiply-xorshift mix, each
 * seeded differently (not cryptographic; the stand-in only needs a change to change it).
 */
export function hashText(text: string): string {
  const seeds = [0x9e3779b1, 0x85ebca77, 0xc2b2ae3d, 0x27d4eb2f];
  const lanes = seeds.map((seed) => seed ^ text.length);
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    for (let lane = 0; lane < 4; lane += 1) {
      lanes[lane] = Math.imul(lanes[lane]! ^ code, 0x5bd1e995 + lane * 0x10001);
      lanes[lane] = lanes[lane]! ^ (lanes[lane]! >>> 15);
    }
  }
  return lanes
    .map((lane) => {
      let mixed = Math.imul(lane ^ (lane >>> 16), 0x85ebca6b);
      mixed = Math.imul(mixed ^ (mixed >>> 13), 0xc2b2ae35);
      return ((mixed ^ (mixed >>> 16)) >>> 0).toString(16).padStart(8, "0");
    })
    .join("");
}

/**
 * A 256-bit hash of a text as 64 hex digits, two {@link hashText} runs: as long as a SHA-256
 * digest, so what carries one is as long as it was when the loopback server used `node:crypto`.
 */
export function longHash(text: string): string {
  return `${hashText(text)}${hashText(`\u0000${text}`)}`;
}

/** Hex digits as base64url (a 64-digit {@link longHash}: 43 characters, as a SHA-256 HMAC). */
export function hexToBase64Url(hex: string): string {
  let binary = "";
  for (let index = 0; index + 1 < hex.length; index += 2) {
    binary += String.fromCharCode(Number.parseInt(hex.slice(index, index + 2), 16));
  }
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}

/** `text` as base64 (UTF-8, padded). */
export function toBase64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** `text` as base64url (UTF-8). */
export function toBase64Url(text: string): string {
  return toBase64(text).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}

/** The text of a base64url string; throws on bad input. */
export function fromBase64Url(encoded: string): string {
  const binary = atob(encoded.replaceAll("-", "+").replaceAll("_", "/"));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}
