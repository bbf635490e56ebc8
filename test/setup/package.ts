import type { TestProject } from "vitest/node";
import { createConsumerProject } from "../package/consumer-project.js";

// The package project's global setup: one build, pack and install for all its files (the
// packed-package checks, the README blocks, the bundles), made from a copy of the sources, so
// a fresh clone with no `dist/` passes and no file rebuilds what another reads.

declare module "vitest" {
  export interface ProvidedContext {
    /** The consumer project with the packed package installed. */
    consumerDir: string;
    /** The copy of the sources it was built and packed from. */
    buildDir: string;
  }
}

/** Builds the consumer project once, provides where it is, and deletes it at the end. */
export default function setup(project: TestProject): () => void {
  const consumer = createConsumerProject("package");
  project.provide("consumerDir", consumer.dir);
  project.provide("buildDir", consumer.buildDir);
  return () => consumer.remove();
}
