import { describe, expect, it } from 'vitest';
import { userMessage } from '../history/history-store-contract.ts';
import type { Item } from '../vocabulary/items.ts';
import { BranchItems } from './branch-items.ts';

const texts = (items: readonly Item[]) =>
  items.map((item) => (item.type === 'message' ? item.content : item.type));

describe('BranchItems', () => {
  it('extends a branch without changing how earlier snapshots read', () => {
    const root = BranchItems.of([userMessage('one')]);
    const two = root.extend([userMessage('two')]);
    const three = two.extend([userMessage('three')]);
    expect(texts(root.with([]))).toEqual(['one']);
    expect(texts(two.with([]))).toEqual(['one', 'two']);
    expect(texts(three.with([]))).toEqual(['one', 'two', 'three']);
    expect([root.length, two.length, three.length]).toEqual([1, 2, 3]);
    expect(two.extend([])).toBe(two);
  });

  it('forks a branch extended elsewhere: both forks read their own items', () => {
    const root = BranchItems.of([userMessage('one')]);
    const left = root.extend([userMessage('left')]);
    const right = root.extend([userMessage('right')]);
    const leftAgain = left.extend([userMessage('left 2')]);
    expect(texts(left.with([]))).toEqual(['one', 'left']);
    expect(texts(right.with([]))).toEqual(['one', 'right']);
    expect(texts(leftAgain.with([]))).toEqual(['one', 'left', 'left 2']);
    expect(texts(right.extend([userMessage('right 2')]).with([]))).toEqual([
      'one',
      'right',
      'right 2',
    ]);
    expect(texts(root.with([]))).toEqual(['one']);
  });

  it('hands out new arrays: changing one changes neither the branch nor the caller’s input', () => {
    const input = [userMessage('one')];
    const branch = BranchItems.of(input);
    input.push(userMessage('added to the input'));
    const request = branch.with([userMessage('new')]);
    expect(texts(request)).toEqual(['one', 'new']);
    request.splice(0, request.length, userMessage('overwritten'));
    expect(texts(branch.with([]))).toEqual(['one']);
    expect(texts(branch.extend([userMessage('two')]).with([]))).toEqual(['one', 'two']);
  });
});
