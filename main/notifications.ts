/**
 * Desktop notifications for new mail and chat, without Electron: the `Notifier` interface (filled
 * in by electron-notifier.ts, which only main/index.ts imports), the words of a notification, and
 * `WakeNotifications`, which turns the node's wake items into notes and keeps a burst from
 * becoming a wall of popups: the first item shows at once, and whatever arrives in the next few
 * seconds is gathered into one summary note. Tested in notifications.test.ts.
 */
import type { NodeWakeItem } from '../contract/core/events.ts';
import { listRoute, routeFor } from './navigate.ts';

export interface Note {
  title: string;
  body: string;
  onClick?: () => void;
}

export interface Notifier {
  show(note: Note): void;
}

/** What RunningNode.onWake delivers: the owner feed's new mail and chat (contract/core/events.ts). */
export type WakeItem = NodeWakeItem;

const MAX_BODY = 160;

function clip(text: string, max = MAX_BODY): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * One item's words: mail → "Mail from alice" / subject; chat → "alice" / the message. An end-to-end
 * encrypted mail or chat message says only that: the feed carries nothing of what it says.
 */
export function noteFor(item: WakeItem): { title: string; body: string } {
  if (item.type === 'mail_message') {
    if (item.end_to_end) return { title: `Mail from ${item.from_alias}`, body: 'End-to-end encrypted' };
    return { title: `Mail from ${item.from_alias}`, body: clip(item.subject) || '(no subject)' };
  }
  if (item.end_to_end) return { title: item.from_alias, body: 'End-to-end encrypted' };
  return { title: item.from_alias, body: clip(item.preview) || 'New message' };
}

function describe(count: number, type: WakeItem['type']): string {
  if (type === 'mail_message') return count === 1 ? '1 mail message' : `${count} mail messages`;
  return count === 1 ? '1 chat message' : `${count} chat messages`;
}

/**
 * Several items as one note: "3 new mail messages" (or "2 mail messages and 1 chat message"),
 * "From alice, bob and 2 others". One item is just `noteFor`.
 */
export function summaryFor(items: readonly WakeItem[]): { title: string; body: string } {
  const [first] = items;
  if (first === undefined) return { title: '', body: '' };
  if (items.length === 1) return noteFor(first);
  const mail = items.filter((item) => item.type === 'mail_message').length;
  const chat = items.length - mail;
  const title =
    mail > 0 && chat > 0
      ? `${describe(mail, 'mail_message')} and ${describe(chat, 'chat_message')}`
      : mail > 0
        ? `${mail} new mail messages`
        : `${chat} new chat messages`;
  const senders = [...new Set(items.map((item) => item.from_alias))];
  const shown = senders.slice(0, 3);
  const more = senders.length - shown.length;
  const body = `From ${shown.join(', ')}${more > 0 ? ` and ${more} ${more === 1 ? 'other' : 'others'}` : ''}`;
  return { title, body };
}

/**
 * Where a click on a note about `items` goes: the item itself when there is one; one session or
 * one identity's mail when they all share it; else the newest item.
 */
export function routeForItems(items: readonly WakeItem[]): string {
  const last = items.at(-1);
  if (last === undefined) return '/mail';
  if (items.length === 1) return routeFor(last);
  const sameAgent = items.every((item) => item.agent_id === last.agent_id);
  const sameType = items.every((item) => item.type === last.type);
  if (sameAgent && last.type === 'chat_message' && items.every((item) => item.type === 'chat_message' && item.session_id === last.session_id))
    return routeFor(last);
  if (sameAgent && sameType) return listRoute(last.type, last.agent_id);
  return routeFor(last);
}

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface WakeNotificationsOptions {
  notifier: Notifier;
  /** Opens a route in the app (focusing its window). */
  navigate: (route: string) => void;
  /** True when notifications should not show (the window is in front: the app shows it live). */
  isQuiet?: () => boolean;
  /** After a note, further items are gathered this long, then shown as one. */
  cooldownMs?: number;
  timers?: Timers;
}

export class WakeNotifications {
  readonly #notifier: Notifier;
  readonly #navigate: (route: string) => void;
  readonly #isQuiet: () => boolean;
  readonly #cooldownMs: number;
  readonly #timers: Timers;
  #held: WakeItem[] = [];
  #cooling: unknown = null;
  #disposed = false;

  constructor(options: WakeNotificationsOptions) {
    this.#notifier = options.notifier;
    this.#navigate = options.navigate;
    this.#isQuiet = options.isQuiet ?? (() => false);
    this.#cooldownMs = options.cooldownMs ?? 4000;
    this.#timers = options.timers ?? {
      setTimeout: (callback, ms) => setTimeout(callback, ms),
      clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    };
  }

  push(item: WakeItem): void {
    if (this.#disposed || this.#isQuiet()) return;
    if (this.#cooling !== null) {
      this.#held.push(item);
      return;
    }
    this.#show([item]);
  }

  #show(items: WakeItem[]): void {
    const route = routeForItems(items);
    this.#notifier.show({ ...summaryFor(items), onClick: () => this.#navigate(route) });
    this.#cooling = this.#timers.setTimeout(() => this.#flush(), this.#cooldownMs);
  }

  #flush(): void {
    this.#cooling = null;
    const held = this.#held;
    this.#held = [];
    if (this.#disposed || held.length === 0 || this.#isQuiet()) return;
    this.#show(held);
  }

  dispose(): void {
    this.#disposed = true;
    this.#held = [];
    if (this.#cooling !== null) this.#timers.clearTimeout(this.#cooling);
    this.#cooling = null;
  }
}
