/**
 * Keyboard movement in lists (UI.md: "every list navigable with arrows/j-k, Enter opens").
 * Pure: given a key and the current position, where does the selection go?
 */

export type ListAction = { type: 'move'; index: number } | { type: 'open'; index: number } | null;

/** What a list key does: move one down or up, jump to an end, or open the current item. */
export type ListStep = 'next' | 'previous' | 'first' | 'last' | 'open';

/**
 * The keys every list takes, with what each does in words: `listKeyAction` reads this table and
 * so does the shortcuts sheet (lib/shortcuts.ts `listShortcuts`), so the two cannot differ.
 */
export const LIST_KEYS: readonly { step: ListStep; keys: readonly string[]; label: string }[] = [
  { step: 'next', keys: ['j', 'ArrowDown'], label: 'Next item' },
  { step: 'previous', keys: ['k', 'ArrowUp'], label: 'Previous item' },
  { step: 'first', keys: ['g', 'Home'], label: 'First item' },
  { step: 'last', keys: ['G', 'End'], label: 'Last item' },
  { step: 'open', keys: ['Enter', ' '], label: 'Open the item' },
];

/** The step a key takes in a list, or null for a key lists do not handle. */
export function listStep(key: string): ListStep | null {
  return LIST_KEYS.find((entry) => entry.keys.includes(key))?.step ?? null;
}

/**
 * ArrowDown/j and ArrowUp/k move by one (clamped), Home/g and End/G jump to the ends, Enter and
 * Space open the current item (LIST_KEYS). `current` is -1 when nothing is selected yet: moving
 * down then selects the first item, moving up the last. Returns null for keys the list does not
 * handle.
 */
export function listKeyAction(key: string, current: number, length: number): ListAction {
  if (length <= 0) return null;
  const last = length - 1;
  switch (listStep(key)) {
    case 'next':
      return { type: 'move', index: current < 0 ? 0 : Math.min(current + 1, last) };
    case 'previous':
      return { type: 'move', index: current < 0 ? last : Math.max(current - 1, 0) };
    case 'first':
      return { type: 'move', index: 0 };
    case 'last':
      return { type: 'move', index: last };
    case 'open':
      return current >= 0 && current <= last ? { type: 'open', index: current } : null;
    default:
      return null;
  }
}

/** True when a key event comes from a text field, where letters must stay letters. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (target === null || typeof (target as { tagName?: unknown }).tagName !== 'string') return false;
  const element = target as unknown as { tagName: string; isContentEditable?: boolean };
  const tag = element.tagName.toLowerCase();
  return tag === 'input' || tag === 'textarea' || tag === 'select' || element.isContentEditable === true;
}
