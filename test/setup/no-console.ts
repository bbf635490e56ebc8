import { afterEach, beforeEach, vi } from "vitest";

// The library must stay quiet: any console output during a test fails it.
const methods = ["log", "info", "warn", "error", "debug"] as const;
let written: string[] = [];

beforeEach(() => {
  written = [];
  for (const method of methods) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      written.push(`console.${method}: ${args.map(String).join(" ")}`);
    });
  }
});

afterEach(() => {
  vi.restoreAllMocks();
  if (written.length > 0) {
    throw new Error(`test wrote to the console:\n${written.join("\n")}`);
  }
});
