import { defineConfig } from "vitest/config";

// Three projects: `npm test` runs all of them, `npm run test:unit` (or `--project NAME`) one.
//   unit         offline, no server: the tests beside the sources and the test/ dirs that
//                need none (properties, fuzz, the bench's checks, …)
//   integration  the stores on real Redis and PostgreSQL (started once by test/setup/servers.ts,
//                for this project only) and the SDK against the loopback Messages API
//   package      the package as users get it: packed, installed, its README blocks compiled,
//                its root bundled for browsers and edge runtimes (one build and install, shared
//                by the files, from test/setup/package.ts)
// A new test that needs a server: put it under test/store/ or test/anthropic/, or name it
// `*.integration.test.ts`; a unit run does not start Redis or PostgreSQL.
const INTEGRATION = [
  "test/store/**/*.test.ts",
  "test/anthropic/**/*.test.ts",
  "test/faults/messages-api-faults.test.ts",
  "**/*.integration.test.ts",
];
const PACKAGE = ["test/package/**/*.test.ts", "test/readme/**/*.test.ts"];

export default defineConfig({
  test: {
    setupFiles: ["test/setup/no-console.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: [...INTEGRATION, ...PACKAGE],
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: INTEGRATION,
          globalSetup: ["test/setup/servers.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "package",
          include: PACKAGE,
          globalSetup: ["test/setup/package.ts"],
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
