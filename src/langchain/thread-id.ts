/** The thread a model call without `configurable.thread_id` belongs to. */
export const DEFAULT_THREAD_ID = "default";

/** The thread a call belongs to, from its `configurable` (`thread_id`). */
export function threadIdOf(configurable: { thread_id?: unknown } | undefined): string {
  const id = configurable?.thread_id;
  if (typeof id === "string" && id !== "") return id;
  return typeof id === "number" ? String(id) : DEFAULT_THREAD_ID;
}
