export { useAgent, type UseAgentOptions, type UseAgentResult } from './use-agent.ts';
