/**
 * The Electron side of notifications.ts: one OS notification per note. Only main/index.ts
 * imports this file; everything worth testing lives in the Electron-free notifications.ts.
 */
import { Notification } from 'electron';
import type { Note, Notifier } from './notifications.ts';

export class ElectronNotifier implements Notifier {
  /**
   * Notifications still on screen. Electron drops the click handler of a notification object
   * that was garbage-collected, so each is held until it is clicked or closed.
   */
  readonly #live = new Set<Notification>();

  show(note: Note): void {
    if (!Notification.isSupported()) return;
    const notification = new Notification({ title: note.title, body: note.body });
    this.#live.add(notification);
    const release = (): void => void this.#live.delete(notification);
    notification.on('click', () => {
      release();
      note.onClick?.();
    });
    notification.on('close', release);
    notification.on('failed', release);
    notification.show();
  }
}
