/**
 * How a compaction's placeholder names the recall handle of what it replaced:
 * `[Content redacted for context management] [recall r7-3f2a]`. A handle is `r`, a counter,
 * and the session's four-hex-digit tag.
 */
export const RECALL_MARK = " [recall ";

const HANDLE = "r\\d+-[0-9a-f]{4}";

/** A whole recall handle, e.g. `r7-3f2a`. */
export const RECALL_HANDLE_PATTERN = new RegExp(`^${HANDLE}$`);

const MARK_AT_END = new RegExp(`\\[recall (${HANDLE})\\]$`);

/** The handle a placeholder text names at its end, if any. */
export function recallHandleIn(text: string): string | undefined {
  return MARK_AT_END.exec(text)?.[1];
}
