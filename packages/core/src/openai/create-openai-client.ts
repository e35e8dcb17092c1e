import OpenAI from 'openai';

/** The connection options both OpenAI adapters share. */
export interface OpenAIClientOptions {
  apiKey?: string;
  baseURL?: string;
  client?: OpenAI;
  maxRetries?: number;
}

/**
 * The given `client`, or a new one from `apiKey` (default a placeholder, for local servers),
 * `baseURL` and `maxRetries` (default 0: an `Agent` retries by its `modelRetry` policy, visibly). `dangerouslyAllowBrowser` is set: this is a
 * browser-first library, and the key is the page user's own.
 */
export function createOpenAIClient(options: OpenAIClientOptions): OpenAI {
  return (
    options.client ??
    new OpenAI({
      apiKey: options.apiKey ?? 'not-needed',
      ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
      maxRetries: options.maxRetries ?? 0,
      dangerouslyAllowBrowser: true,
    })
  );
}
