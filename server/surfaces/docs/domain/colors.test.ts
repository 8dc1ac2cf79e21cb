import { describe, expect, it } from 'vitest';
import { parseColor, presetOf, SVC_PALETTES } from './colors.ts';
import { AA_RATIO, contrastRatio } from './contrast.ts';

describe('parseColor', () => {
  it('reads the hex spellings', () => {
    expect(parseColor('#fff')).toEqual({ r: 255, g: 255, b: 255, a: 1 });
    expect(parseColor('#1A2b3C')).toEqual({ r: 26, g: 43, b: 60, a: 1 });
    expect(parseColor('#00000080')).toEqual({ r: 0, g: 0, b: 0, a: 128 / 255 });
  });

  it('reads rgb() and rgba() with channels 0-255 and alpha 0-1', () => {
    expect(parseColor('rgb(1, 2, 3)')).toEqual({ r: 1, g: 2, b: 3, a: 1 });
    expect(parseColor('rgba(255,255,255,0.5)')).toEqual({ r: 255, g: 255, b: 255, a: 0.5 });
    expect(parseColor('rgba(0, 0, 0, 1)')).toEqual({ r: 0, g: 0, b: 0, a: 1 });
    expect(parseColor('rgba(0, 0, 0, .25)')?.a).toBe(0.25);
  });

  it('reads the named colours, case-insensitively', () => {
    expect(parseColor('navy')).toEqual({ r: 0, g: 0, b: 128, a: 1 });
    expect(parseColor('Grey')).toEqual(parseColor('gray'));
    expect(parseColor('transparent')?.a).toBe(0);
  });

  it.each([
    '#ff',
    '#fffff',
    '#ggg',
    'rgb(256, 0, 0)',
    'rgb(0, 0)',
    'rgba(0, 0, 0, 1.5)',
    'rgba(0, 0, 0)',
    'rgb(0, 0, 0, 0.5)',
    'rgb(-1, 0, 0)',
    'hsl(0, 0%, 0%)',
    'cyan',
    'red; background: url(x)',
    '',
    12,
    null,
  ])('refuses %j', (value) => {
    expect(parseColor(value)).toBeNull();
  });
});

describe('contrast', () => {
  const c = (value: string) => parseColor(value)!;

  it('gives the known ratios', () => {
    expect(contrastRatio(c('black'), c('white'))).toBeCloseTo(21, 5);
    expect(contrastRatio(c('white'), c('black'))).toBeCloseTo(21, 5);
    expect(contrastRatio(c('#777'), c('#fff'))).toBeCloseTo(4.48, 2);
    expect(contrastRatio(c('#767676'), c('#fff'))).toBeGreaterThanOrEqual(AA_RATIO);
    expect(contrastRatio(c('#abc'), c('#abc'))).toBe(1);
  });

  it('keeps every svc palette text colour at AA on its surface and background', () => {
    for (const palette of [SVC_PALETTES.light, SVC_PALETTES.dark]) {
      for (const fg of [palette.text, palette.muted]) {
        expect(contrastRatio(c(fg), c(palette.surface))).toBeGreaterThanOrEqual(AA_RATIO);
        expect(contrastRatio(c(fg), c(palette.background))).toBeGreaterThanOrEqual(AA_RATIO);
      }
    }
  });
});

describe('presetOf', () => {
  it('accepts svc and ignores anything else', () => {
    expect(presetOf('svc')).toBe('svc');
    expect(presetOf('aweb')).toBeNull();
    expect(presetOf(undefined)).toBeNull();
  });
});
