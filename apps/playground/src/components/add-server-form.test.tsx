import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AddServerForm } from './add-server-form.tsx';

describe('AddServerForm', () => {
  afterEach(() => {
    cleanup();
  });

  it('closes on Escape from any of its fields', () => {
    const onCancel = vi.fn();
    render(<AddServerForm existing={[]} onAdd={vi.fn()} onCancel={onCancel} />);
    const name = screen.getByTestId('add-server-name');
    name.focus();
    fireEvent.keyDown(name, { key: 'Escape' });
    expect(onCancel).toHaveBeenCalledTimes(1);
  });

  it('ignores other keys and an Escape already handled inside', () => {
    const onCancel = vi.fn();
    render(<AddServerForm existing={[]} onAdd={vi.fn()} onCancel={onCancel} />);
    const name = screen.getByTestId('add-server-name');
    fireEvent.keyDown(name, { key: 'Enter' });
    const handled = new KeyboardEvent('keydown', {
      key: 'Escape',
      bubbles: true,
      cancelable: true,
    });
    handled.preventDefault();
    name.dispatchEvent(handled);
    expect(onCancel).not.toHaveBeenCalled();
  });
});
