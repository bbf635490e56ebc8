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

/** The longest recall mark: {@link RECALL_MARK}, `r`, a counter of up to 16 digits, `-`, the tag, `]`. */
export const MAX_RECALL_MARK_LENGTH = RECALL_MARK.length + 1 + 16 + 1 + 4 + 1;

/**
 * Whether `text` is `placeholder`, alone or followed by the recall mark the archive adds: a
 * result compacted before. Lengths are compared first, so a long original costs nothing.
 */
export function isPlaceholderText(text: string, placeholder: string): boolean {
  const extra = text.length - placeholder.length;
  if (extra === 0) return text === placeholder;
  return (
    extra > RECALL_MARK.length &&
    extra <= MAX_RECALL_MARK_LENGTH &&
    text.startsWith(RECALL_MARK, placeholder.length) &&
    text.startsWith(placeholder)
  );
}
