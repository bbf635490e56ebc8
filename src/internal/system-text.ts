/**
 * The text of another API's system message content, as a writer sends one that is not in its
 * own API's shape: a string as it is, or its parts' non-empty `text`s, one a line.
 */
export function systemText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts: string[] = [];
  for (const part of content) {
    const text = typeof part === "object" && part !== null ? (part as { text?: unknown }).text : "";
    if (typeof text === "string" && text !== "") texts.push(text);
  }
  return texts.join("\n");
}
