import type { Message, ToolUseBlock } from "../core/message.js";

/** Where a tool use sits. */
export interface ToolUseSite {
  block: ToolUseBlock;
  messageIndex: number;
  blockIndex: number;
  /** Position among the conversation's tool uses, oldest first. */
  ordinal: number;
}

/** Every tool use of a conversation: how many, and where those of each id sit, oldest first. */
export interface ToolUseIndex {
  count: number;
  /** One site, or several when an id is reused (a provider numbering calls per step). */
  byId: Map<string, ToolUseSite | ToolUseSite[]>;
}

/** Where each tool use sits, and in which order the uses appeared. */
export function indexToolUses(conversation: readonly Message[]): ToolUseIndex {
  const byId = new Map<string, ToolUseSite | ToolUseSite[]>();
  let count = 0;
  for (let messageIndex = 0; messageIndex < conversation.length; messageIndex += 1) {
    const message = conversation[messageIndex]!;
    if (message.role !== "assistant") continue;
    const content = message.content;
    for (let blockIndex = 0; blockIndex < content.length; blockIndex += 1) {
      const block = content[blockIndex]!;
      if (block.type !== "tool_use") continue;
      const site = { block, messageIndex, blockIndex, ordinal: count };
      count += 1;
      const before = byId.get(block.id);
      if (before === undefined) byId.set(block.id, site);
      else if (Array.isArray(before)) before.push(site);
      else byId.set(block.id, [before, site]);
    }
  }
  return { count, byId };
}

/** The use a result in message `messageIndex` answers: the latest one before it with its id. */
export function useAnswered(
  uses: ToolUseIndex,
  toolUseId: string,
  messageIndex: number,
): ToolUseSite | undefined {
  const sites = uses.byId.get(toolUseId);
  if (sites === undefined) return undefined;
  if (!Array.isArray(sites)) return sites.messageIndex < messageIndex ? sites : undefined;
  for (let index = sites.length - 1; index >= 0; index -= 1)
    if (sites[index]!.messageIndex < messageIndex) return sites[index];
  return undefined;
}
