// The loopback Gemini API server lives with the example that also runs on it (an example must
// not import from test/); the test suites take it from here.
export * from "../../examples/support/gemini-api-server.js";
export * from "../../examples/support/gemini-rules.js";
