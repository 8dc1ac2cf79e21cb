/**
 * Browser sessions as the Settings list names them: which browser on which system, from the
 * User-Agent the node noted when it signed in (a hint for telling sessions apart, nothing more).
 */

const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\//, 'Opera'],
  [/\bFirefox\//, 'Firefox'],
  [/\bChromium\//, 'Chromium'],
  [/\b(?:HeadlessChrome|Chrome|CriOS)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
];

const SYSTEMS: [RegExp, string][] = [
  [/\b(?:iPhone|iPad)\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bLinux\b/, 'Linux'],
];

/** "Chrome on Linux", "Firefox", "A browser on macOS"; "Unknown browser" without a User-Agent; other clients by their first word. */
export function sessionClientLabel(userAgent: string | null): string {
  if (userAgent === null || userAgent.trim() === '') return 'Unknown browser';
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1] ?? null;
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1] ?? null;
  if (browser === null && system === null) return userAgent.split(/[\s/]/)[0] ?? 'Unknown browser';
  if (browser === null) return `A browser on ${system ?? ''}`;
  return system === null ? browser : `${browser} on ${system}`;
}
