import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { MarkdownText } from './markdown-text.tsx';

describe('MarkdownText', () => {
  afterEach(() => {
    cleanup();
  });

  it('renders code spans, emphasis and lists as elements, with no literal markers', () => {
    const { container } = render(
      <MarkdownText
        text={'Always returns a tool error (`isError: true`).\n\n- **one**\n- *two*'}
      />,
    );
    expect(container.querySelector('code')?.textContent).toBe('isError: true');
    expect(container.querySelector('strong')?.textContent).toBe('one');
    expect(container.querySelector('em')?.textContent).toBe('two');
    expect(container.querySelectorAll('li')).toHaveLength(2);
    expect(container.textContent).not.toContain('`');
  });

  it('never renders HTML from the text: tags stay literal text', () => {
    const { container } = render(
      <MarkdownText
        text={'Hi <img src=x onerror="alert(1)"> and <script>alert(2)</script>\n\n<div>block</div>'}
      />,
    );
    expect(container.querySelector('img, script, .markdown-text div')).toBeNull();
    expect(container.textContent).toContain('<img src=x onerror="alert(1)">');
    expect(container.textContent).toContain('<div>block</div>');
  });

  it('links open only for http(s), in a new tab without an opener', () => {
    const { container } = render(
      <MarkdownText text={'[docs](https://example.com/a) and [bad](javascript:alert(1))'} />,
    );
    const links = container.querySelectorAll('a');
    expect(links).toHaveLength(1);
    expect(links[0]?.getAttribute('href')).toBe('https://example.com/a');
    expect(links[0]?.getAttribute('rel')).toBe('noopener noreferrer');
    expect(container.textContent).toContain('bad');
  });
});
