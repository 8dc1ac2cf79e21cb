/**
 * Allow-lists for everything the renderer might try to leave the app with: navigation, new
 * windows, external links and permission prompts. Pure functions, so they are unit tested without
 * Electron (main/security.test.ts); main/index.ts wires them to the Electron events.
 *
 * Model: electron/electron docs/tutorial/security.md items 5, 13, 14 and 15, and element-desktop's
 * `safeOpenURL` (only a few well-known schemes ever reach the OS).
 */
import { APP_HOST, APP_SCHEME } from './app-protocol.ts';

/** Schemes we hand to the OS (`shell.openExternal`). Everything else is dropped silently. */
const EXTERNAL_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * True when `url` may be opened in the user's browser or mail client. Credentials in the URL
 * (`https://user:pass@host`) are refused: they are a classic phishing disguise.
 */
export function isSafeExternalUrl(url: string): boolean {
  const parsed = parse(url);
  if (parsed === null || !EXTERNAL_PROTOCOLS.has(parsed.protocol)) return false;
  if (parsed.protocol === 'mailto:') return parsed.pathname.length > 0;
  return parsed.hostname !== '' && parsed.username === '' && parsed.password === '';
}

/**
 * True when a window may navigate to `url`: only within our own `app://svc-node` origin (the
 * renderer uses hash routing, so real navigations are rare: a reload, or the initial load).
 */
export function isAllowedNavigation(url: string): boolean {
  const parsed = parse(url);
  // Compared by parts: for a non-special scheme the WHATWG parser's `origin` is the string "null".
  return parsed !== null && parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST;
}

/**
 * Chromium's Local Network Access gates fetches from a non-loopback origin (ours is `app://`) to
 * loopback addresses behind these permissions. The renderer's one job is talking to the node on
 * 127.0.0.1, and the CSP already limits `connect-src` to exactly that origin, so we grant them to
 * our own pages only (without this, a future Chromium could silently cut the UI off its node).
 */
const LOOPBACK_PERMISSIONS = new Set(['loopback-network', 'local-network-access']);

/**
 * Writing plain text to the clipboard (`navigator.clipboard.writeText`): the copy buttons next to
 * API keys that are shown only once. Reading the clipboard stays denied.
 */
const CLIPBOARD_WRITE = 'clipboard-sanitized-write';

/**
 * Permission requests the renderer may get: notifications (for new mail and chat later), the
 * loopback access and clipboard writing above. Camera, microphone, geolocation, clipboard-read,
 * MIDI and the rest are denied without a prompt. Only our own pages may ask at all.
 */
export function isPermissionAllowed(permission: string, requestingUrl: string): boolean {
  if (!isAllowedNavigation(requestingUrl)) return false;
  return permission === 'notifications' || permission === CLIPBOARD_WRITE || LOOPBACK_PERMISSIONS.has(permission);
}
