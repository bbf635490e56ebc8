import { sideOf } from "./responses-input.js";

/**
 * `items` without the reasoning items no item of the model's follows: the Responses API refuses
 * a reasoning item "provided without its required following item" (last, or before an input
 * message, a tool output or a compaction item), as an incomplete response's lone reasoning
 * item would be. A run of reasoning items stands or falls with the item after it.
 */
export function withoutLoneReasoning<Item extends Record<string, unknown>>(
  items: readonly Item[],
): Item[] {
  const kept: Item[] = [];
  let followed = false;
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items[index]!;
    if (item["type"] !== "reasoning") followed = sideOf(item) === "assistant";
    if (item["type"] !== "reasoning" || followed) kept.push(item);
  }
  return kept.reverse();
}
