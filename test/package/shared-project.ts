import { inject } from "vitest";
import { type ConsumerProject, consumerProjectAt } from "./consumer-project.js";

/**
 * The consumer project the package project's global setup built (test/setup/package.ts). Shared
 * by every file of the project: write files of your own names into it, and never remove it.
 */
export function sharedConsumerProject(): ConsumerProject {
  return consumerProjectAt(inject("consumerDir"), inject("buildDir"));
}
