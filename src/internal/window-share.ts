/**
 * Tokens a part of the summary may take: `option` when given; else `share` of the window, at
 * least `least`; else, when the window is not known, `unknownWindow`.
 */
export function windowShareBudget(
  option: number | undefined,
  contextLimit: number | undefined,
  budget: { share: number; unknownWindow: number; least?: number },
): number {
  if (option !== undefined) return option;
  if (contextLimit === undefined) return budget.unknownWindow;
  const share = Math.floor(contextLimit * budget.share);
  return budget.least === undefined ? share : Math.max(budget.least, share);
}
