/**
 * `npx node scripts/make-icons.ts`: renders build/icon.svg to the PNG icons electron-builder uses.
 *
 * - build/icon.png            1024x1024: the source electron-builder turns into the macOS .icns
 *                             and the Windows .ico (build/electron-builder.yml `icon`).
 * - build/icons/<N>x<N>.png   the Linux icon set (`linux.icon`), each size rendered from the vector
 *                             rather than scaled down from the large PNG.
 *
 * The rasteriser is headless Chromium (Debian's, as in the browser tests; CHROMIUM_PATH overrides),
 * driven by playwright-core, so no image package is needed. The PNGs are committed: packaging does
 * not run this script.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const svg = readFileSync(join(root, 'build/icon.svg'), 'utf8');
const LINUX_SIZES = [16, 24, 32, 48, 64, 128, 256, 512];

const home = mkdtempSync(join(tmpdir(), 'svc-node-icons-'));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  env: { ...process.env, HOME: home, XDG_CONFIG_HOME: home, XDG_CACHE_HOME: home },
});

/** The SVG drawn at size x size CSS pixels (device scale 1) on a transparent page, as PNG bytes. */
async function render(size: number): Promise<Buffer> {
  const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
  const sized = svg.replace(/width="\d+" height="\d+"/, `width="${size}" height="${size}"`);
  await page.setContent(`<!doctype html><style>html,body{margin:0;background:transparent}svg{display:block}</style>${sized}`);
  const png = await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } });
  await page.close();
  return png;
}

try {
  writeFileSync(join(root, 'build/icon.png'), await render(1024));
  console.log('wrote build/icon.png (1024x1024)');
  mkdirSync(join(root, 'build/icons'), { recursive: true });
  for (const size of LINUX_SIZES) {
    writeFileSync(join(root, `build/icons/${size}x${size}.png`), await render(size));
  }
  console.log(`wrote build/icons/{${LINUX_SIZES.map((s) => `${s}x${s}`).join(',')}}.png`);
} finally {
  await browser.close();
  rmSync(home, { recursive: true, force: true });
}
