/** A promise and the function that resolves it: a point one test step waits for another at. */
export interface Gate {
  readonly opened: Promise<void>;
  open(): void;
}

/** A new closed {@link Gate}. */
export function gate(): Gate {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/**
 * A `beforeCompact` hook that, for automatic runs, opens `entered` and then waits for
 * `release`: a compaction held inside its hook while the test acts.
 */
export function holdingHook(entered: Gate, release: Gate) {
  return async (context: { trigger: string }): Promise<undefined> => {
    if (context.trigger !== "auto") return undefined;
    entered.open();
    await release.opened;
    return undefined;
  };
}
