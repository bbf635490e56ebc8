import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    setupFiles: ["test/setup/no-console.ts"],
    // Real Redis and PostgreSQL for the store tests, started once (test/setup/servers.ts).
    globalSetup: ["test/setup/servers.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
