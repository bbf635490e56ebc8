import { defineConfig } from "vitest/config";

// Four projects: `npm test` runs all of them, `npm run test:unit` (or `--project NAME`) one.
//   unit         offline, no server, fast: the tests beside the sources and the test/ dirs that
//                need none (faults, promises, parity, …)
//   slow         offline, no server, the long ones: property tests, fuzz tests and the bench's
//                checks (test/properties, test/fuzz, test/bench, and any `*.property.test.ts` or
//                `*.fuzz.test.ts`), apart so that the unit project gives feedback in a minute or two
//   integration  the stores on real Redis and PostgreSQL (started once by test/setup/servers.ts,
//                for this project only) and the SDK against the loopback Messages API
//   package      the package as users get it: packed, installed, its README blocks compiled,
//                its root bundled for browsers and edge runtimes (one build and install, shared
//                by the files, from test/setup/package.ts)
// A new test that needs a server: put it under test/store/ or test/anthropic/, or name it
// `*.integration.test.ts`; a unit run does not start Redis or PostgreSQL. A new test that takes
// seconds (many fast-check runs, megabytes of input): name it `*.property.test.ts` or
// `*.fuzz.test.ts`, or put it in one of the slow project's folders.
const INTEGRATION = [
  "test/store/**/*.test.ts",
  "test/anthropic/**/*.test.ts",
  "test/faults/messages-api-faults.test.ts",
  "**/*.integration.test.ts",
];
const PACKAGE = ["test/package/**/*.test.ts", "test/readme/**/*.test.ts"];
const SLOW = [
  "test/properties/**/*.test.ts",
  "test/fuzz/**/*.test.ts",
  "test/bench/**/*.test.ts",
  "**/*.property.test.ts",
  "**/*.fuzz.test.ts",
];

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
          exclude: [...INTEGRATION, ...PACKAGE, ...SLOW],
        },
      },
      {
        extends: true,
        test: {
          name: "slow",
          include: SLOW,
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
