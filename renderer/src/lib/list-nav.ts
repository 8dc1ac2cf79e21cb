/**
 * Keyboard movement in lists (UI.md: "every list navigable with arrows/j-k, Enter opens").
 * Pure: given a key and the current position, where does the selection go?
 */

export type ListAction = { type: 'move'; index: number } | { type: 'open'; index: number } | null;

/**
 * ArrowDown/j and ArrowUp/k move by one (clamped), Home/g and End/G jump to the ends, Enter and
 * Space open the current item. `current` is -1 when nothing is selected yet: moving down then
 * selects the first item, moving up the last. Returns null for keys the list does not handle.
 */
export function listKeyAction(key: string, current: number, length: number): ListAction {
  if (length <= 0) return null;
  const last = length - 1;
  switch (key) {
    case 'ArrowDown':
    case 'j':
      return { type: 'move', index: current < 0 ? 0 : Math.min(current + 1, last) };
    case 'ArrowUp':
    case 'k':
      return { type: 'move', index: current < 0 ? last : Math.max(current - 1, 0) };
    case 'Home':
    case 'g':
      return { type: 'move', index: 0 };
    case 'End':
    case 'G':
      return { type: 'move', index: last };
    case 'Enter':
    case ' ':
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
