import { ValidationError, type ValidationIssue } from "../../src/core/errors.js";

/** The issues of the `ValidationError` `run` threw; none when it threw nothing (anything else is rethrown). */
export function refusalIssues(run: () => unknown): ValidationIssue[] {
  try {
    run();
  } catch (error) {
    if (ValidationError.isInstance(error)) return error.issues;
    throw error;
  }
  return [];
}

/** The paths of those issues, each joined with dots (`"0.content"`); empty when none. */
export function refusedPaths(run: () => unknown): string[] {
  return refusalIssues(run).map((issue) => issue.path.join("."));
}
