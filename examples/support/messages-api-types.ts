import type { PreservedThinkingMode } from "../../src/testing/anthropic-rules/thinking.js";

/**
 * What the loopback Messages API server (`messages-api-server.ts`) records and answers with:
 * the requests it receives, the replies a test scripts, and its options.
 */

/** The endpoints the server speaks. */
export type Endpoint = "messages" | "count_tokens";

/** What answers a request: an endpoint's script, or (for compaction requests) the compaction script. */
export type Script = Endpoint | "compaction";

/** How a request ended: answered (2xx or 3xx), refused (an error status), dropped by the server, or closed by the client. */
export type RequestOutcome = "answered" | "refused" | "dropped" | "closed_by_client";

/** One request as the server received it. */
export interface RecordedRequest {
  /** Which endpoint it hit; `unknown` for any other path. */
  endpoint: Endpoint | "unknown";
  method: string;
  /** The path with the query string. */
  path: string;
  /** Request headers, names in lower case. */
  headers: Record<string, string>;
  /** The body parsed as JSON (the raw text when it is not JSON). */
  body: unknown;
  /** Settles when the exchange ends: answered, refused with an error status, dropped by the server, or closed by the client. */
  outcome: Promise<RequestOutcome>;
}

/** A usage object as the API reports it. */
export interface WireUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
}

/** What the server answers with. */
export type Reply =
  /**
   * A `Message` response; `content` defaults to one text block with `text` ("ok"). While the
   * request thinks, a `thinking` block leads it unless `content` has one. The server signs
   * every `thinking` block without a `signature` and every `redacted_thinking` block without
   * `data` in the reply (a `redacted_thinking` block may carry its hidden text as `hidden`).
   */
  | {
      type: "message";
      text?: string;
      content?: Record<string, unknown>[];
      /**
       * The leading thinking block's text; a string leads the reply with it even when the
       * request does not think, `false` answers without one even when it does.
       * @default a short fixed text while the request thinks
       */
      thinking?: string | false;
      /** Adds a `redacted_thinking` block after the leading thinking block, hiding this text. */
      redactedThinking?: string;
      usage?: Partial<WireUsage>;
      stopReason?: string;
      id?: string;
    }
  /**
   * The answer to a compaction request: one `compaction` block holding `summary` (default: a
   * short summary of the request's messages), signed so that the turns kept after it continue
   * the summarized prefix, `stop_reason: "compaction"`, top-level usage 0 and the cost in
   * `usage.iterations`. With another `stopReason` (`max_tokens`, `refusal`, ...) the content is
   * empty, as when the summarization call writes no summary.
   */
  | {
      type: "compaction";
      summary?: string;
      stopReason?: string;
      /** The `compaction` iteration's tokens. @default the request's and the summary's rough size */
      iteration?: { input_tokens?: number; output_tokens?: number };
      id?: string;
    }
  /** A `count_tokens` response. */
  | { type: "tokens"; inputTokens: number }
  /**
   * An API error: `{ type: "error", error: { type, message, details? } }` with this status
   * (`errorCode` goes in `error.details.error_code`). Unless `headers` says otherwise it carries
   * `retry-after-ms: 1`, so the SDK's retries don't wait.
   */
  | {
      type: "error";
      status: number;
      errorType?: string;
      errorCode?: string;
      message?: string;
      headers?: Record<string, string>;
    }
  /** Any JSON body with any status. */
  | { type: "json"; status: number; body: unknown; headers?: Record<string, string> }
  /** Destroys the connection without answering. */
  | { type: "drop" }
  /** Never answers (until the client gives up or the server closes). */
  | { type: "hang" }
  /** Answers `reply` after `ms` milliseconds (a slow response). */
  | { type: "delay"; ms: number; reply: Reply };

/** A reply, or a function choosing one from the request. */
export type ReplyScript = Reply | ((request: RecordedRequest) => Reply | Promise<Reply>);

/** Options of `MessagesApiServer.start`. */
export interface MessagesApiServerOptions {
  /** Answers `/v1/messages` when no queued reply is left. @default a text reply "ok" */
  onMessages?: ReplyScript;
  /** Answers `/v1/messages/count_tokens` when no queued reply is left. @default about 4 chars a token */
  onCountTokens?: ReplyScript;
  /** Answers compaction requests when no queued reply is left. @default `{ type: "compaction" }` */
  onCompaction?: ReplyScript;
  /**
   * The preserved-thinking prefix check: `"enforced"` (an account created on or after
   * 2026-08-31), `"opt-in"` (an older account: only requests that set
   * `prefix_mismatch_behavior` are checked), `"off"` (a model without the check).
   * @default "enforced"
   */
  preservedThinking?: PreservedThinkingMode;
  /** Think when the request sets no `thinking`, as current models do. @default false */
  thinkByDefault?: boolean;
  /**
   * The model's context window in tokens (counted as `roughTokens` of `system`, `tools`
   * and `messages`): a `/v1/messages` request above it gets the API's 400 "prompt is too
   * long". @default no limit
   */
  contextWindow?: number;
}
