import { describe, expect, it } from 'vitest';
import { isTypingTarget, listKeyAction } from './list-nav.ts';

describe('listKeyAction', () => {
  it('moves with arrows and j/k, clamped at the ends', () => {
    expect(listKeyAction('ArrowDown', 0, 3)).toEqual({ type: 'move', index: 1 });
    expect(listKeyAction('j', 2, 3)).toEqual({ type: 'move', index: 2 });
    expect(listKeyAction('ArrowUp', 1, 3)).toEqual({ type: 'move', index: 0 });
    expect(listKeyAction('k', 0, 3)).toEqual({ type: 'move', index: 0 });
  });

  it('starts from the top or the bottom when nothing is selected', () => {
    expect(listKeyAction('j', -1, 3)).toEqual({ type: 'move', index: 0 });
    expect(listKeyAction('ArrowUp', -1, 3)).toEqual({ type: 'move', index: 2 });
  });

  it('jumps with Home/End and g/G', () => {
    expect(listKeyAction('End', 0, 5)).toEqual({ type: 'move', index: 4 });
    expect(listKeyAction('G', 0, 5)).toEqual({ type: 'move', index: 4 });
    expect(listKeyAction('Home', 3, 5)).toEqual({ type: 'move', index: 0 });
    expect(listKeyAction('g', 3, 5)).toEqual({ type: 'move', index: 0 });
  });

  it('opens the current item with Enter or Space', () => {
    expect(listKeyAction('Enter', 1, 3)).toEqual({ type: 'open', index: 1 });
    expect(listKeyAction(' ', 0, 3)).toEqual({ type: 'open', index: 0 });
    expect(listKeyAction('Enter', -1, 3)).toBeNull();
  });

  it('ignores other keys and empty lists', () => {
    expect(listKeyAction('x', 0, 3)).toBeNull();
    expect(listKeyAction('ArrowDown', -1, 0)).toBeNull();
  });
});

describe('isTypingTarget', () => {
  it('recognises text fields', () => {
    expect(isTypingTarget({ tagName: 'INPUT' } as unknown as EventTarget)).toBe(true);
    expect(isTypingTarget({ tagName: 'textarea' } as unknown as EventTarget)).toBe(true);
    expect(isTypingTarget({ tagName: 'DIV', isContentEditable: true } as unknown as EventTarget)).toBe(true);
    expect(isTypingTarget({ tagName: 'UL' } as unknown as EventTarget)).toBe(false);
    expect(isTypingTarget(null)).toBe(false);
  });
});
