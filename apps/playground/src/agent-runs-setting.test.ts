import { afterEach, describe, expect, it } from 'vitest';
import {
  agentRunsStorageKey,
  loadAgentRunsSetting,
  saveAgentRunsSetting,
  validateServerUrl,
} from './agent-runs-setting.ts';

afterEach(() => localStorage.clear());

describe('the agent runs setting', () => {
  it('defaults to the page, and keeps a server URL once saved', () => {
    expect(loadAgentRunsSetting()).toEqual({ where: 'page' });
    saveAgentRunsSetting({ where: 'server', url: 'http://127.0.0.1:3010/agent/' });
    expect(loadAgentRunsSetting()).toEqual({
      where: 'server',
      url: 'http://127.0.0.1:3010/agent/',
    });
  });

  it('reads anything malformed as the page', () => {
    for (const raw of [
      'not json',
      '{"where":"server"}',
      '{"where":"server","url":"ftp://x"}',
      'null',
    ]) {
      localStorage.setItem(agentRunsStorageKey, raw);
      expect(loadAgentRunsSetting()).toEqual({ where: 'page' });
    }
  });

  it('accepts http(s) URLs only', () => {
    expect(validateServerUrl('https://agents.example.com/agent/')).toBeUndefined();
    expect(validateServerUrl('javascript:alert(1)')).toMatch(/http:\/\/ or https:\/\//);
    expect(validateServerUrl('127.0.0.1:3010')).toMatch(/not a valid URL|http/);
  });
});
