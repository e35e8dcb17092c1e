import type { McpServer } from '@switchboard/core';

/**
 * The part of an {@link McpServer} the resource hooks use: its store, and the resource methods.
 * Any object with these members works.
 */
export type McpResourceServerLike = Pick<
  McpServer,
  | 'subscribe'
  | 'getSnapshot'
  | 'listResources'
  | 'listResourceTemplates'
  | 'readResource'
  | 'subscribeResource'
> & { readonly name?: string };

/**
 * The part of an {@link McpServer} the prompt hooks use: its store, and the prompt and
 * completion methods. Any object with these members works.
 */
export type McpPromptServerLike = Pick<
  McpServer,
  'subscribe' | 'getSnapshot' | 'listPrompts' | 'getPrompt' | 'complete'
> & { readonly name?: string };
