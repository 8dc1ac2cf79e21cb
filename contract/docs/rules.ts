/**
 * The document surface's rules that the node and the UI apply alike: the slug of a document, the
 * built-in templates' slots and limits, the theme's tokens and contrast threshold, the image and
 * video types an asset may be. The wire schemas (contract/docs/*.ts) are built from them, the
 * node's services check with them, and the UI fills its forms from them.
 *
 * Pure: no imports, no Node or DOM APIs (lint keeps it so), so the renderer takes these values
 * without taking zod.
 */

// ------------------------------------------------------------------ documents

/** A document's slug: a letter or digit, then letters, digits, ".", "-" or "_"; at most SLUG_MAX. */
export const SLUG_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;
export const SLUG_MAX = 160;
export const SLUG_RULE = 'must start with a letter or digit and contain only letters, digits, ".", "-" or "_"';
/** The same rule as one pattern, its length included, for forms (contract/docs/rules.test.ts pins the two together). */
export const DOCUMENT_SLUG = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,159}$/;

/** Why `value` (as it will be sent) cannot be a document's slug, in words that follow the field's label; null when it can. */
export function documentSlugProblem(value: string): string | null {
  if (value === '') return 'enter a slug, for example q3-update';
  if (value.length > SLUG_MAX) return `use at most ${SLUG_MAX} characters (this one has ${value.length})`;
  return SLUG_PATTERN.test(value) ? null : 'use letters, digits, ".", "-" or "_", starting with a letter or digit (no spaces)';
}
export const TITLE_MAX = 240;

// ------------------------------------------------------------------ templates

export const TEMPLATE_NAMES = ['pitch', 'memo', 'metrics'] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

export const SLOT_NAMES = ['cover', 'metrics', 'sections', 'ask'] as const;
export type SlotName = (typeof SLOT_NAMES)[number];

/** The slots' limits: characters per field, entries per list (GET /v1/templates sends them too). */
export const TEMPLATE_LIMITS = {
  title: 240,
  subtitle: 2000,
  eyebrow: 240,
  sections: 40,
  heading: 240,
  sectionBody: 16000,
  metrics: 40,
  label: 120,
  value: 120,
  caption: 240,
  headline: 240,
  askBody: 8000,
  items: 40,
  item: 240,
} as const;

// ------------------------------------------------------------------ theme

export const COLOR_KEYS = ['background', 'surface', 'text', 'muted', 'border', 'accent'] as const;
export type ColorKey = (typeof COLOR_KEYS)[number];

export const FONT_NAMES = ['system', 'serif', 'mono'] as const;
export type FontName = (typeof FONT_NAMES)[number];

export const LAYOUT = {
  mode: ['document', 'presentation'],
  measure: ['narrow', 'default', 'wide'],
  color_scheme: ['light', 'dark', 'auto'],
} as const;

/** The presets the node knows; any other is ignored, not refused. */
export const PRESETS = ['svc'] as const;
export type Preset = (typeof PRESETS)[number];

/** The text colours a present page paints, each checked on what it is painted on. */
export const TEXT_ROLES = ['text', 'muted', 'link', 'code'] as const;
export type TextRole = (typeof TEXT_ROLES)[number];

export const PALETTE_NAMES = ['light', 'dark'] as const;
export type PaletteName = (typeof PALETTE_NAMES)[number];

/** WCAG AA for normal text: the theme is refused below it. */
export const AA_RATIO = 4.5;

/** A contrast ratio as shown: two decimals, rounded down so 4.499 never reads as 4.50. */
export function formatRatio(ratio: number): string {
  return (Math.floor(ratio * 100) / 100).toFixed(2);
}

/** The theme's header and footer, in characters. */
export const THEME_TEXT_MAX = 2000;

// ------------------------------------------------------------------ assets

export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];
/** An image (and so a logo) is at most 256 KiB. */
export const IMAGE_MAX_BYTES = 256 * 1024;

export const VIDEO_TYPES = ['video/mp4', 'video/quicktime', 'video/webm'] as const;
export type VideoType = (typeof VIDEO_TYPES)[number];

// ------------------------------------------------------------------ present links

/** The name a visitor types when saving through an editable link, in characters. */
export const EDITOR_NAME_MAX = 120;
/** What an editable link's page may ask the node to preview, in characters. */
export const PREVIEW_MAX_CHARS = 200_000;
