/** Names of the environment variables global-setup.ts sets for the test workers. */
export const playgroundEnvironment = {
  url: 'SWITCHBOARD_E2E_PLAYGROUND_URL',
  mcpUrl: 'SWITCHBOARD_E2E_MCP_URL',
  modelBaseUrl: 'SWITCHBOARD_E2E_MODEL_BASE_URL',
  demoUrl: 'SWITCHBOARD_E2E_DEMO_URL',
} as const;
