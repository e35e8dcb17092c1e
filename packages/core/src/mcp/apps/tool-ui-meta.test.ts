import { describe, expect, it } from 'vitest';
import { isAppVisible, isModelVisible, readToolUi } from './tool-ui-meta.ts';

describe('readToolUi', () => {
  it('reads _meta.ui.resourceUri and visibility', () => {
    expect(
      readToolUi({ _meta: { ui: { resourceUri: 'ui://demo/chart', visibility: ['app'] } } }),
    ).toEqual({ resourceUri: 'ui://demo/chart', visibility: ['app'] });
  });

  it('reads the deprecated flat _meta["ui/resourceUri"]', () => {
    expect(readToolUi({ _meta: { 'ui/resourceUri': 'ui://demo/old' } })).toEqual({
      resourceUri: 'ui://demo/old',
    });
  });

  it('drops a resourceUri that is not ui:// and unknown visibility values', () => {
    expect(
      readToolUi({
        _meta: { ui: { resourceUri: 'https://evil.example/x', visibility: ['app', 'admin', 3] } },
      }),
    ).toEqual({ visibility: ['app'] });
  });

  it('is undefined without MCP Apps metadata', () => {
    expect(readToolUi({})).toBeUndefined();
    expect(readToolUi({ _meta: { other: 1 } })).toBeUndefined();
  });
});

describe('visibility', () => {
  it('defaults to model and app', () => {
    expect(isModelVisible({})).toBe(true);
    expect(isAppVisible({})).toBe(true);
  });

  it('keeps app-only tools from the model and model-only tools from apps', () => {
    expect(isModelVisible({ ui: { visibility: ['app'] } })).toBe(false);
    expect(isAppVisible({ ui: { visibility: ['app'] } })).toBe(true);
    expect(isAppVisible({ ui: { visibility: ['model'] } })).toBe(false);
    expect(isModelVisible({ ui: { visibility: [] } })).toBe(false);
    expect(isAppVisible({ ui: { visibility: [] } })).toBe(false);
  });
});
