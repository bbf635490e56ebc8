/** One completion request to a summarising model. */
export interface LlmRequest {
  /** The user prompt (the conversation transcript and the instructions). */
  prompt: string;
  /** The system prompt. */
  system?: string;
  /** The most tokens the reply may take. */
  maxTokens?: number;
  /** Aborts the request (timeout or caller cancellation). */
  signal?: AbortSignal;
}

/** The model behind `LLMCompactor`: takes a prompt, returns text. */
export interface LlmClient {
  complete(request: LlmRequest): Promise<string>;
}
