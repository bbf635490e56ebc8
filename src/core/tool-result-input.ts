import type { ToolResultBlock } from "./message.js";

/**
 * A tool result as `addToolResults` takes it: the library's shape with `isError` optional
 * (default `false`), or the Anthropic SDK's `tool_result` param (`tool_use_id`, `content`
 * as a string or the SDK's blocks: text, `image`, `document`, `search_result`, `is_error`),
 * so the blocks an app builds for the SDK need no rewriting: they are read as
 * `fromAnthropicMessages` reads a tool result's, and sent back as they came.
 */
export type ToolResultInput =
  | (Omit<ToolResultBlock, "isError"> & { isError?: boolean })
  | {
      type: "tool_result";
      tool_use_id: string;
      /**
       * A string or the SDK's blocks: text, an image (`source` `{ type: "base64", media_type,
       * data }` or `{ type: "url", url }`), a document, a search result, each with its own
       * fields (the SDK's param types are interfaces, which no index signature takes: the
       * fields are checked when given).
       */
      content?: string | ({ type: "text"; text: string } | { type: string })[];
      is_error?: boolean;
      /** A short summary computed when the tool ran (see `ToolResultBlock.compactSummary`). */
      compactSummary?: string;
    };
