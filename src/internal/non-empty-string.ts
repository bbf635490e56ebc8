/** Whether `value` is a string with at least one character (a guard the quick checks share). */
export function isNonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}
