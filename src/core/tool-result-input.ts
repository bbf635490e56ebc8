import type { ToolResultBlock } from "./message.js";

/**
 * A tool result as `addToolResults` takes it: the library's shape with `isError` optional
 * (default `false`), or the Anthropic SDK's `tool_result` param (`tool_use_id`, `content`
 * as a string or text blocks, `is_error`), so the blocks an app builds for the SDK need no
 * rewriting.
 */
export type ToolResultInput =
  | (Omit<ToolResultBlock, "isError"> & { isError?: boolean })
  | {
      type: "tool_result";
      tool_use_id: string;
      content?: string | { type: "text"; text: string }[];
      is_error?: boolean;
      /** A short summary computed when the tool ran (see `ToolResultBlock.compactSummary`). */
      compactSummary?: string;
    };
