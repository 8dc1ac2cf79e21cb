/**
 * The pure rules of Settings → Devices: how long a link code has left, in the words and figures
 * the panel shows, and where a device stands (this one, live, revoked).
 */
import type { Device } from '../api/owner.ts';
import { plural } from './format.ts';

/** Minutes and seconds left ("9:05"), never below zero; rounded up, so "0:00" shows only once the time is out. */
export function countdown(msLeft: number): string {
  const seconds = Math.max(0, Math.ceil(msLeft / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** The same time in words, for a screen reader's occasional announcement ("about 9 minutes left"). */
export function countdownWords(msLeft: number): string {
  const seconds = Math.max(0, Math.ceil(msLeft / 1000));
  if (seconds === 0) return 'expired';
  if (seconds < 60) return 'less than a minute left';
  return `about ${plural(Math.ceil(seconds / 60), 'minute')} left`;
}

/** Only another device that is not revoked yet may be revoked: this one is revoked from another. */
export function canRevoke(device: Device): boolean {
  return !device.this_device && device.revoked_at === null;
}

/**
 * The list as the panel shows it: this device first, then the live ones, newest link first, then
 * the revoked ones, most recently revoked first.
 */
export function sortDevices(devices: readonly Device[]): Device[] {
  const rank = (device: Device): number => (device.this_device ? 0 : device.revoked_at === null ? 1 : 2);
  return [...devices].sort((a, b) => rank(a) - rank(b) || (b.revoked_at ?? '').localeCompare(a.revoked_at ?? '') || b.linked_at.localeCompare(a.linked_at));
}
