import type { ToolResultBlock } from "../core/message.js";

/** A tool result's text: its string content, or its text parts joined by newlines. */
export function toolResultText(content: ToolResultBlock["content"]): string {
  if (typeof content === "string") return content;
  const texts: string[] = [];
  for (const part of content) if (part.type === "text") texts.push(part.text);
  return texts.join("\n");
}
