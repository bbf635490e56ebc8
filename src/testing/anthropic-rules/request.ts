/**
 * The checks the Messages API makes on a request's `messages` that compaction can break, in the
 * API's own wording (tool_use/tool_result pairing, roles, empty messages): the stand-in answers
 * 400 with them, as the real API would, and the loopback server's tests assert that no request
 * ever fails them. Where each wording comes from (R: the API's error text as users reported it):
 * - "messages.N: `tool_use` ids were found without `tool_result` blocks immediately after: …. Each
 *   `tool_use` block must have a corresponding `tool_result` block in the next message." (R:
 *   anthropics/claude-code#5989, #7929).
 * - "messages.N.content.M: unexpected `tool_use_id` found in `tool_result` blocks: …. Each
 *   `tool_result` block must have a corresponding `tool_use` block in the previous message." (R:
 *   anthropics/claude-code#13460, #18947).
 * - "messages.N: Did not find K `tool_result` block(s) at the beginning of this message. Messages
 *   following `tool_use` blocks must begin with a matching number of `tool_result` blocks." (R:
 *   anthropics/claude-code#37, apify/tester-mcp-client#12): tool results come first.
 * - "messages.N.content.M: `tool_use` ids must be unique" (R: anthropics/claude-code#20901,
 *   #21317; anomalyco/opencode#1279): a `tool_use` id comes once in the whole request, even where
 *   the call it repeats was answered (a provider numbering each reply's calls, `call_0` every time).
 * - "messages.N.content: 'image' blocks are not permitted within assistant turns" (R: measured
 *   against the live API, request ids in a stored client's comment; SEMOSS/Semoss#2323,
 *   epam/ai-dial-adapter-bedrock#306): an image goes in a user turn. The docs show images in user
 *   messages only and say nothing of assistant turns.
 *
 * Two ways to judge roles. `"alternate"` (the default, the `AnthropicStandIn`'s): two messages of
 * one role in a row are refused, and a `system` message is one more role. `"merged"` (the loopback
 * server's): as the API documents it, "Consecutive `user` or `assistant` turns in your request
 * will be combined into a single turn" (the SDK's `MessageCreateParams.messages`), so the pairing
 * and ordering rules read the turns as merged; and mid-conversation `role: "system"` messages,
 * which the API places by their own rules (the loopback's `system-messages.ts`; an
 * `output_config`-only one "is accepted anywhere"), are left out of the turns.
 */

type WireBlock = { type?: unknown; id?: unknown; tool_use_id?: unknown };
type WireMessage = { role?: unknown; content?: unknown };

/** How {@link requestProblems} reads roles. */
export interface RequestProblemsOptions {
  /**
   * `"alternate"`: consecutive messages of one role are refused. `"merged"`: they are one turn,
   * as the API combines them, and `system` messages are left to their own rules.
   * @default "alternate"
   */
  roles?: "alternate" | "merged";
}

function blocksOf(message: WireMessage): WireBlock[] {
  return Array.isArray(message.content) ? (message.content as WireBlock[]) : [];
}

function idsOf(blocks: readonly WireBlock[], type: string, field: "id" | "tool_use_id"): string[] {
  return blocks.filter((block) => block.type === type).map((block) => String(block[field]));
}

const missingResults = (index: number, missing: readonly string[]) =>
  `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
const orphanResult = (where: string, id: string) =>
  `${where}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
const resultsNotFirst = (index: number, uses: number) =>
  `messages.${index}: Did not find ${uses} \`tool_result\` block(s) at the beginning of this message. Messages following \`tool_use\` blocks must begin with a matching number of \`tool_result\` blocks.`;
const repeatedId = (index: number, blockIndex: number) =>
  `messages.${index}.content.${blockIndex}: \`tool_use\` ids must be unique`;
const emptyContent = (index: number) =>
  `messages.${index}: all messages must have non-empty content except for the optional final assistant message`;
const resultInAssistant = (index: number) =>
  `messages.${index}: \`tool_result\` blocks can only be in \`user\` messages`;
const FIRST_NOT_USER = 'messages: first message must use the "user" role';
const imageInAssistant = (index: number) =>
  `messages.${index}.content: 'image' blocks are not permitted within assistant turns`;

const isEmpty = (message: WireMessage) =>
  message.content === "" || (Array.isArray(message.content) && message.content.length === 0);

/** The problems the API would report for `messages`; empty when it would accept them. */
export function requestProblems(messages: unknown, options: RequestProblemsOptions = {}): string[] {
  if (!Array.isArray(messages) || messages.length === 0) {
    return ["messages: at least one message is required"];
  }
  const list = messages as WireMessage[];
  if (options.roles === "merged") return [...mergedProblems(list), ...repeatedIdProblems(list)];
  const problems: string[] = [];
  // The API's own `compaction` block may lead as an assistant message of its own.
  const leadsWithCompaction = blocksOf(list[0] ?? {})[0]?.type === "compaction";
  if (list[0]?.role !== "user" && !leadsWithCompaction) problems.push(FIRST_NOT_USER);
  list.forEach((message, index) => {
    problems.push(...shapeProblems(list, index));
    problems.push(
      ...(message.role === "assistant"
        ? toolUseProblems(list, index)
        : toolResultProblems(list, index)),
    );
  });
  problems.push(...repeatedIdProblems(list));
  return problems;
}

/** Each `tool_use` block whose id an earlier one in the request had. */
function repeatedIdProblems(list: readonly WireMessage[]): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  list.forEach((message, index) => {
    blocksOf(message).forEach((block, blockIndex) => {
      if (block.type !== "tool_use") return;
      const id = String(block.id);
      if (seen.has(id)) problems.push(repeatedId(index, blockIndex));
      seen.add(id);
    });
  });
  return problems;
}

/** A message's own shape: non-empty content (but a final assistant one), roles alternating. */
function shapeProblems(list: readonly WireMessage[], index: number): string[] {
  const message = list[index]!;
  const problems: string[] = [];
  const last = index === list.length - 1;
  if (isEmpty(message) && !(last && message.role === "assistant")) {
    problems.push(emptyContent(index));
  }
  if (index > 0 && list[index - 1]?.role === message.role) {
    problems.push(`messages.${index}: roles must alternate (found two "${message.role}" in a row)`);
  }
  return problems;
}

/**
 * An assistant message: no tool results or images in it, and each tool call answered in the next
 * message.
 */
function toolUseProblems(list: readonly WireMessage[], index: number): string[] {
  const blocks = blocksOf(list[index]!);
  const problems: string[] = [];
  if (blocks.some((block) => block.type === "tool_result")) {
    problems.push(resultInAssistant(index));
  }
  if (blocks.some((block) => block.type === "image")) problems.push(imageInAssistant(index));
  const uses = idsOf(blocks, "tool_use", "id");
  if (index === list.length - 1 || uses.length === 0) return problems;
  const answered = new Set(idsOf(blocksOf(list[index + 1] ?? {}), "tool_result", "tool_use_id"));
  const missing = uses.filter((id) => !answered.has(id));
  if (missing.length > 0) problems.push(missingResults(index, missing));
  return problems;
}

/** A user message: tool results first, each answering a tool call of the message before. */
function toolResultProblems(list: readonly WireMessage[], index: number): string[] {
  const previous = index > 0 ? list[index - 1] : undefined;
  const offered = previous?.role === "assistant" ? idsOf(blocksOf(previous), "tool_use", "id") : [];
  const known = new Set(offered);
  const problems: string[] = [];
  let seenOther = false;
  let reportedOrder = false;
  blocksOf(list[index]!).forEach((block, blockIndex) => {
    if (block.type !== "tool_result") {
      seenOther = true;
      return;
    }
    if (seenOther && offered.length > 0 && !reportedOrder) {
      reportedOrder = true;
      problems.push(resultsNotFirst(index, offered.length));
    }
    if (!known.has(String(block.tool_use_id))) {
      problems.push(
        orphanResult(`messages.${index}.content.${blockIndex}`, String(block.tool_use_id)),
      );
    }
  });
  return problems;
}

/** A turn: consecutive messages of one role (`system` messages left out), by their indices. */
interface Turn {
  role: unknown;
  indices: number[];
}

function turnsOf(list: readonly WireMessage[]): Turn[] {
  const turns: Turn[] = [];
  list.forEach((message, index) => {
    if (message.role === "system") return;
    const last = turns.at(-1);
    if (last !== undefined && last.role === message.role) last.indices.push(index);
    else turns.push({ role: message.role, indices: [index] });
  });
  return turns;
}

/** The problems of `messages` read as the API reads them: same-role messages merged into turns. */
function mergedProblems(list: readonly WireMessage[]): string[] {
  const turns = turnsOf(list);
  const problems: string[] = [];
  const first = turns[0];
  const opening = first === undefined ? undefined : list[first.indices[0]!];
  const leadsWithCompaction = blocksOf(opening ?? {})[0]?.type === "compaction";
  if (opening?.role !== "user" && !leadsWithCompaction) problems.push(FIRST_NOT_USER);
  const final = turns.at(-1)?.indices.at(-1);
  turns.forEach((turn, turnIndex) => {
    for (const index of turn.indices) {
      const message = list[index]!;
      if (isEmpty(message) && !(index === final && message.role === "assistant")) {
        problems.push(emptyContent(index));
      }
    }
    if (turn.role === "assistant") {
      problems.push(...mergedToolUseProblems(list, turn, turns[turnIndex + 1]));
    } else {
      problems.push(...mergedToolResultProblems(list, turn, turns[turnIndex - 1]));
    }
  });
  return problems;
}

/** An assistant turn: no tool results or images in it, each tool call answered in the next turn. */
function mergedToolUseProblems(
  list: readonly WireMessage[],
  turn: Turn,
  next: Turn | undefined,
): string[] {
  const problems: string[] = [];
  const answered = new Set(
    (next?.indices ?? []).flatMap((index) =>
      idsOf(blocksOf(list[index]!), "tool_result", "tool_use_id"),
    ),
  );
  for (const index of turn.indices) {
    const blocks = blocksOf(list[index]!);
    if (blocks.some((block) => block.type === "tool_result"))
      problems.push(resultInAssistant(index));
    if (blocks.some((block) => block.type === "image")) problems.push(imageInAssistant(index));
    if (next === undefined) continue;
    const missing = idsOf(blocks, "tool_use", "id").filter((id) => !answered.has(id));
    if (missing.length > 0) problems.push(missingResults(index, missing));
  }
  return problems;
}

/** A user turn: its tool results first, each answering a tool call of the turn before. */
function mergedToolResultProblems(
  list: readonly WireMessage[],
  turn: Turn,
  previous: Turn | undefined,
): string[] {
  const offered =
    previous?.role === "assistant"
      ? previous.indices.flatMap((index) => idsOf(blocksOf(list[index]!), "tool_use", "id"))
      : [];
  const known = new Set(offered);
  const problems: string[] = [];
  let seenOther = false;
  let reportedOrder = false;
  for (const index of turn.indices) {
    const message = list[index]!;
    // A string content is one text block: merged before the results, it comes first.
    if (typeof message.content === "string") seenOther = true;
    blocksOf(message).forEach((block, blockIndex) => {
      if (block.type !== "tool_result") {
        seenOther = true;
        return;
      }
      if (seenOther && offered.length > 0 && !reportedOrder) {
        reportedOrder = true;
        problems.push(resultsNotFirst(turn.indices[0]!, offered.length));
      }
      if (!known.has(String(block.tool_use_id))) {
        problems.push(
          orphanResult(`messages.${index}.content.${blockIndex}`, String(block.tool_use_id)),
        );
      }
    });
  }
  return problems;
}
