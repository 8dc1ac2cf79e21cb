/**
 * The Appearance setting: System (follow the OS), Light or Dark. Remembered in this browser
 * (localStorage, shared by its tabs, which follow a change made in another one at once) and
 * applied the moment it changes.
 *
 * How: the dark tokens live in one `@media (prefers-color-scheme: dark)` rule (styles/tokens.css).
 * System leaves its condition as written, so the page follows the OS with no script in the way
 * (also before this runs, and the instant the OS switches); Dark sets the condition to `all`,
 * Light to `not all`. One set of dark values, never a copy. `data-theme` on <html> names the
 * look in effect, for the few rules that need it (native controls in Light on a dark OS).
 */
import { computed, ref } from 'vue';

export type ThemeChoice = 'system' | 'light' | 'dark';
export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];

const STORAGE_KEY = 'svc-node.appearance';
const SYSTEM_DARK = '(prefers-color-scheme: dark)';
const CONDITION: Record<ThemeChoice, string> = { system: SYSTEM_DARK, dark: 'all', light: 'not all' };

function isChoice(value: unknown): value is ThemeChoice {
  return typeof value === 'string' && (THEME_CHOICES as readonly string[]).includes(value);
}

function stored(): ThemeChoice {
  const value = window.localStorage.getItem(STORAGE_KEY);
  return isChoice(value) ? value : 'system';
}

const choice = ref<ThemeChoice>('system');
const systemDark = ref(false);
const effective = computed<'light' | 'dark'>(() => (choice.value === 'system' ? (systemDark.value ? 'dark' : 'light') : choice.value));

/** The dark tokens' media rules in the app's own style sheets, found once at start. */
let darkRules: CSSMediaRule[] = [];

function findDarkRules(): CSSMediaRule[] {
  const found: CSSMediaRule[] = [];
  for (const sheet of Array.from(document.styleSheets)) {
    let rules: CSSRuleList;
    try {
      rules = sheet.cssRules;
    } catch {
      continue; // another origin's sheet: not ours
    }
    for (const rule of Array.from(rules)) {
      if (rule instanceof CSSMediaRule && rule.media.mediaText.replace(/\s+/g, ' ') === SYSTEM_DARK) found.push(rule);
    }
  }
  return found;
}

function apply(): void {
  for (const rule of darkRules) rule.media.mediaText = CONDITION[choice.value];
  document.documentElement.dataset['theme'] = effective.value;
}

let started = false;

/** Applies the remembered choice now and keeps the page in step with it and with the OS. Call once, before the app mounts. */
export function startTheme(): void {
  if (started) return;
  started = true;
  darkRules = findDarkRules();
  choice.value = stored();
  const media = window.matchMedia(SYSTEM_DARK);
  systemDark.value = media.matches;
  apply();
  media.addEventListener('change', (event) => {
    systemDark.value = event.matches;
    apply();
  });
  // Another tab of this app changed it.
  window.addEventListener('storage', (event) => {
    if (event.key !== STORAGE_KEY) return;
    choice.value = stored();
    apply();
  });
}

export function useTheme() {
  function choose(next: ThemeChoice): void {
    choice.value = next;
    window.localStorage.setItem(STORAGE_KEY, next);
    apply();
  }
  return { choice, effective, choose };
}
