/**
 * Theme colours (docs/adr/0006-library-and-document-surfaces.md): the accepted
 * spellings, parsed to RGBA, and the base palettes. Accepted: `#rgb`, `#rrggbb`, `#rrggbbaa`,
 * `rgb(r, g, b)` / `rgba(r, g, b, a)` with integer channels 0-255 and alpha 0-1, and a short list
 * of names. Anything else is null (dropped).
 */
import { COLOR_KEYS, PRESETS, type ColorKey, type Preset } from '../../../../contract/docs/rules.ts';
import type { Palette } from '../../../../contract/docs/theme.ts';

export { COLOR_KEYS, PRESETS, type ColorKey, type Palette, type Preset };

export interface Rgba {
  r: number;
  g: number;
  b: number;
  /** 0 (transparent) to 1 (opaque). */
  a: number;
}

export const COLOR_NAMES: Readonly<Record<string, string>> = {
  black: '#000000',
  white: '#ffffff',
  transparent: '#00000000',
  red: '#ff0000',
  green: '#008000',
  blue: '#0000ff',
  navy: '#000080',
  orange: '#ffa500',
  purple: '#800080',
  pink: '#ffc0cb',
  yellow: '#ffff00',
  gray: '#808080',
  grey: '#808080',
};

const HEX = /^#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const CHANNEL = '\\s*(\\d{1,3})\\s*';
const ALPHA = '\\s*(0|1|0?\\.\\d+|1\\.0+)\\s*';
const RGB = new RegExp(`^rgb\\(${CHANNEL},${CHANNEL},${CHANNEL}\\)$`, 'i');
const RGBA = new RegExp(`^rgba\\(${CHANNEL},${CHANNEL},${CHANNEL},${ALPHA}\\)$`, 'i');

/** The colour `value` names, or null when it is not one of the accepted spellings. */
export function parseColor(value: unknown): Rgba | null {
  if (typeof value !== 'string' || value.length > 64) return null;
  const text = value.trim();
  const named = COLOR_NAMES[text.toLowerCase()];
  if (named !== undefined) return parseColor(named);
  const hex = HEX.exec(text);
  if (hex) {
    let digits = hex[1]!;
    if (digits.length === 3) digits = [...digits].map((d) => d + d).join('');
    const byte = (i: number) => parseInt(digits.slice(i * 2, i * 2 + 2), 16);
    return { r: byte(0), g: byte(1), b: byte(2), a: digits.length === 8 ? byte(3) / 255 : 1 };
  }
  const match = RGB.exec(text) ?? RGBA.exec(text);
  if (!match) return null;
  const [r, g, b] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  if (r > 255 || g > 255 || b > 255) return null;
  const a = match[4] === undefined ? 1 : Number(match[4]);
  if (!(a >= 0 && a <= 1)) return null;
  return { r, g, b, a };
}

/**
 * The `svc` base palettes: calm, neutral, every text colour AA on its surface and background.
 * Used when no preset (or an unknown one) is named; custom colours override them.
 */
export const SVC_PALETTES: Readonly<{ light: Palette; dark: Palette }> = {
  light: {
    background: '#f6f7f9',
    surface: '#ffffff',
    text: '#1f2328',
    muted: '#57606a',
    border: '#d0d7de',
    accent: '#0a5dbd',
  },
  dark: {
    background: '#0d1117',
    surface: '#161b22',
    text: '#e6edf3',
    muted: '#9da7b3',
    border: '#30363d',
    accent: '#6cb6ff',
  },
};

/** A known preset, or null for anything else (an unknown preset is ignored, not refused). */
export function presetOf(value: unknown): Preset | null {
  return typeof value === 'string' && (PRESETS as readonly string[]).includes(value) ? (value as Preset) : null;
}

/** The base palettes a preset (or none) stands for. */
export function palettesOf(_preset: Preset | null): { light: Palette; dark: Palette } {
  return SVC_PALETTES;
}
