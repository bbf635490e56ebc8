/**
 * The checks the Messages API makes on a request's `messages` that compaction can break, in the
 * API's own wording (tool_use/tool_result pairing, roles, empty messages): the stand-in answers
 * 400 with them, as the real API would, and the loopback server's tests assert that no request
 * ever fails them.
 */

type WireBlock = { type?: unknown; id?: unknown; tool_use_id?: unknown };
type WireMessage = { role?: unknown; content?: unknown };

function blocksOf(message: WireMessage): WireBlock[] {
  return Array.isArray(message.content) ? (message.content as WireBlock[]) : [];
}

function idsOf(blocks: readonly WireBlock[], type: string, field: "id" | "tool_use_id"): string[] {
  return blocks.filter((block) => block.type === type).map((block) => String(block[field]));
}

/** The problems the API would report for `messages`; empty when it would accept them. */
export function requestProblems(messages: unknown): string[] {
  if (!Array.isArray(messages) || messages.length === 0) {
    return ["messages: at least one message is required"];
  }
  const list = messages as WireMessage[];
  const problems: string[] = [];
  // The API's own `compaction` block may lead as an assistant message of its own.
  const leadsWithCompaction = blocksOf(list[0] ?? {})[0]?.type === "compaction";
  if (list[0]?.role !== "user" && !leadsWithCompaction) {
    problems.push('messages: first message must use the "user" role');
  }
  list.forEach((message, index) => {
    problems.push(...shapeProblems(list, index));
    problems.push(
      ...(message.role === "assistant"
        ? toolUseProblems(list, index)
        : toolResultProblems(list, index)),
    );
  });
  return problems;
}

/** A message's own shape: non-empty content (but a final assistant one), roles alternating. */
function shapeProblems(list: readonly WireMessage[], index: number): string[] {
  const message = list[index]!;
  const problems: string[] = [];
  const last = index === list.length - 1;
  const empty =
    message.content === "" || (Array.isArray(message.content) && message.content.length === 0);
  if (empty && !(last && message.role === "assistant")) {
    problems.push(
      `messages.${index}: all messages must have non-empty content except for the optional final assistant message`,
    );
  }
  if (index > 0 && list[index - 1]?.role === message.role) {
    problems.push(`messages.${index}: roles must alternate (found two "${message.role}" in a row)`);
  }
  return problems;
}

/** An assistant message: no tool results in it, and each tool call answered in the next message. */
function toolUseProblems(list: readonly WireMessage[], index: number): string[] {
  const blocks = blocksOf(list[index]!);
  const problems: string[] = [];
  if (blocks.some((block) => block.type === "tool_result")) {
    problems.push(`messages.${index}: \`tool_result\` blocks can only be in \`user\` messages`);
  }
  const uses = idsOf(blocks, "tool_use", "id");
  if (index === list.length - 1 || uses.length === 0) return problems;
  const answered = new Set(idsOf(blocksOf(list[index + 1] ?? {}), "tool_result", "tool_use_id"));
  const missing = uses.filter((id) => !answered.has(id));
  if (missing.length > 0) {
    problems.push(
      `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
    );
  }
  return problems;
}

/** A user message: tool results first, each answering a tool call of the message before. */
function toolResultProblems(list: readonly WireMessage[], index: number): string[] {
  const previous = index > 0 ? list[index - 1] : undefined;
  const offered = new Set(
    previous?.role === "assistant" ? idsOf(blocksOf(previous), "tool_use", "id") : [],
  );
  const problems: string[] = [];
  let seenOther = false;
  blocksOf(list[index]!).forEach((block, blockIndex) => {
    if (block.type !== "tool_result") {
      seenOther = true;
      return;
    }
    if (seenOther) {
      problems.push(
        `messages.${index}.content.${blockIndex}: tool_result blocks must come first in the content array`,
      );
    }
    if (!offered.has(String(block.tool_use_id))) {
      problems.push(
        `messages.${index}.content.${blockIndex}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the previous message.`,
      );
    }
  });
  return problems;
}
