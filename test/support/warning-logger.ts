import type { Logger } from "../../src/index.js";

/** A logger that keeps the warnings it is told, for tests that read them. */
export function warningLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  return {
    logger: {
      warn: (message: string) => {
        warnings.push(message);
      },
    },
    warnings,
  };
}
