// The loopback Messages API server lives with the example that also runs on it (an example
// must not import from test/); the test suites take it from here.
export * from "../../examples/support/messages-api-server.js";
