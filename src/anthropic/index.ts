// The @anthropic-ai/sdk adapter lands with the Anthropic adapter issue.
export {};
