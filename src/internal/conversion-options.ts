import { ValidationError, type ValidationIssue } from "../core/errors.js";
import { isPlainObject } from "./plain-object.js";

/**
 * Checks the options a provider converter takes (`{ sessionId?, firstTurnNumber?, clock?,
 * generateId? }`, the functions named in `functions`): a `ValidationError` about `subject`
 * naming each bad one.
 */
export function checkConversionOptions(
  options: unknown,
  subject: string,
  functions: readonly string[] = ["clock"],
): void {
  const issues: ValidationIssue[] = [];
  if (!isPlainObject(options)) {
    issues.push({ path: [], message: "must be an object" });
  } else {
    const { sessionId, firstTurnNumber } = options;
    if (sessionId !== undefined && (typeof sessionId !== "string" || sessionId === ""))
      issues.push({ path: ["sessionId"], message: "must be a non-empty string" });
    if (
      firstTurnNumber !== undefined &&
      !(Number.isInteger(firstTurnNumber) && (firstTurnNumber as number) >= 1)
    )
      issues.push({ path: ["firstTurnNumber"], message: "must be a whole number, 1 or more" });
    for (const name of functions) {
      const value = options[name];
      if (value !== undefined && typeof value !== "function")
        issues.push({ path: [name], message: "must be a function" });
    }
  }
  if (issues.length > 0) throw new ValidationError(subject, issues);
}
