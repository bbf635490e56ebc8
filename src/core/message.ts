/** A JSON value, as carried in tool inputs and provider fields. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * Identifies a turn: one user request and everything the agent does for it.
 * The summary message uses `{ owner: "u", number: 0 }` ({@link SUMMARY_TURN_ID}).
 */
export interface TurnId {
  owner: string;
  number: number;
}

/** Provider fields the library does not interpret (Anthropic's `cache_control`, `citations`, …), carried verbatim. */
export type ProviderExtra = JsonObject;

/** Plain text. */
export interface TextBlock {
  type: "text";
  text: string;
  /** Provider fields carried verbatim through compaction and conversion. */
  extra?: ProviderExtra;
}

/** Where an image comes from. */
export type ImageSource =
  | { type: "base64"; mediaType: string; data: string }
  | { type: "url"; url: string }
  | { type: "file"; fileId: string };

/** An image. */
export interface ImageBlock {
  type: "image";
  source: ImageSource;
  /** Provider fields carried verbatim through compaction and conversion. */
  extra?: ProviderExtra;
}

/** Extended thinking; the signature must be sent back byte for byte. */
export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  signature: string;
  /** Provider fields carried verbatim through compaction and conversion. */
  extra?: ProviderExtra;
}

/** Thinking the provider encrypted. */
export interface RedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
  /** Provider fields carried verbatim through compaction and conversion. */
  extra?: ProviderExtra;
}

/** A tool call made by the assistant. */
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: JsonObject;
  /** Provider fields carried verbatim through compaction and conversion. */
  extra?: ProviderExtra;
}

/** What a tool result may contain besides a plain string. */
export type ToolResultContentBlock = TextBlock | ImageBlock | OpaqueBlock;

/** The result of a tool call, sent back in a user message. */
export interface ToolResultBlock {
  type: "tool_result";
  toolUseId: string;
  content: string | ToolResultContentBlock[];
  isError: boolean;
  /** A short summary computed when the tool ran, used by `toolCompaction: "summarize"`. */
  compactSummary?: string;
  /** Provider fields carried verbatim through compaction and conversion. */
  extra?: ProviderExtra;
}

/**
 * A provider block the library does not model (documents, server-tool blocks, compaction
 * blocks, types not yet known), carried unchanged in its provider's wire format.
 */
export interface OpaqueBlock {
  type: "opaque";
  /** The block exactly as the provider sent it. */
  block: JsonObject;
}

/** The `type` of the block Anthropic's server-side compaction writes (a summary and its signature). */
export const COMPACTION_BLOCK_TYPE = "compaction";

/**
 * A `compaction` block written by the Anthropic API (`{ type: "compaction", content, signature }`),
 * carried as an {@link OpaqueBlock}, unchanged: the API checks its signature and content. A
 * conversation may start with it, as an assistant message of its own or as the first block of
 * the first message: it stands for the messages it summarized.
 */
export interface CompactionBlock extends OpaqueBlock {
  block: JsonObject & { type: typeof COMPACTION_BLOCK_TYPE };
}

/** The `type` of the opaque block that carries a mid-conversation `role: "system"` message. */
export const SYSTEM_MESSAGE_BLOCK_TYPE = "agentCompaction:systemMessage";

/**
 * A mid-conversation `role: "system"` message (an instruction the app adds partway through,
 * without editing the request's `system`), carried verbatim in `message` as the only block of
 * a message of its own where the caller put it. That message's `role` is nominally `"user"`
 * (a system message follows a user turn and precedes the reply); converters send it back as
 * the `role: "system"` message it is, and compaction never splits it from the message it follows.
 */
export interface SystemMessageBlock extends OpaqueBlock {
  block: { type: typeof SYSTEM_MESSAGE_BLOCK_TYPE; message: JsonObject };
}

/** Any block of a message, discriminated by `type`. */
export type ContentBlock =
  | TextBlock
  | ImageBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ToolUseBlock
  | ToolResultBlock
  | OpaqueBlock;

/** What every message carries. */
export interface MessageBase {
  id: string;
  sessionId: string;
  turnId: TurnId;
  createdAt: Date;
  content: ContentBlock[];
  /**
   * Set on a message the library wrote, not the user or the model: a `summary` (of folded
   * turns, or the API's compaction), a `continuation` (the pair that closes a tool exchange
   * whose thinking a compaction removed) or a `notice` (trimmed messages, interrupted calls),
   * so an app can tell them apart or hide them. Absent on everyone else's.
   */
  generated?: GeneratedKind;
}

/** What kind of message the library wrote (see {@link MessageBase.generated}). */
export type GeneratedKind = "summary" | "continuation" | "notice";

/** A message from the user (requests, tool results, the compaction summary). */
export interface UserMessage extends MessageBase {
  role: "user";
}

/** A message from the assistant (text, thinking, tool calls). */
export interface AssistantMessage extends MessageBase {
  role: "assistant";
}

/** A conversation message, discriminated by `role`. */
export type Message = UserMessage | AssistantMessage;
