// The loopback Chat Completions API lives with the example that also runs on it (an example
// must not import from test/); the test suites take it, and its rules, from here.
export * from "../../examples/support/chat-completions-rules.js";
export * from "../../examples/support/chat-completions-server.js";
