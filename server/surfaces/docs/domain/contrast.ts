/** WCAG 2.x relative luminance and contrast ratio (a theme's text on its surface must reach AA). */
import type { Rgba } from './colors.ts';

/** WCAG AA for normal text, and the ratio as messages show it: the UI's rules too. */
export { AA_RATIO, formatRatio } from '../../../../contract/docs/rules.ts';

function linear(channel: number): number {
  const c = channel / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** Relative luminance of an opaque colour (alpha is ignored), 0 (black) to 1 (white). */
export function relativeLuminance(color: Pick<Rgba, 'r' | 'g' | 'b'>): number {
  return 0.2126 * linear(color.r) + 0.7152 * linear(color.g) + 0.0722 * linear(color.b);
}

/** (L1 + 0.05) / (L2 + 0.05) with L1 the lighter: 1 (same) to 21 (black on white). */
export function contrastRatio(a: Pick<Rgba, 'r' | 'g' | 'b'>, b: Pick<Rgba, 'r' | 'g' | 'b'>): number {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}
