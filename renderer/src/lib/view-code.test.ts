// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { forgetFailedLinks, loadViewCode, reloadOnto, RELOAD_KEY, RELOAD_SPACING_MS, untilAnswered, ViewCodeUnavailable } from './view-code.ts';

function link(rel: string, href: string): HTMLLinkElement {
  const element = document.createElement('link');
  element.rel = rel;
  element.href = href;
  document.head.append(element);
  return element;
}

describe('forgetFailedLinks', () => {
  it('takes a stylesheet or script preload out of the page as it fails, and the link’s own listener still hears it', () => {
    const stop = forgetFailedLinks(document);
    const sheet = link('stylesheet', '/ui/assets/a.css');
    const preload = link('modulepreload', '/ui/assets/a.js');
    const icon = link('icon', '/ui/favicon.svg');
    let heard = 0;
    sheet.addEventListener('error', () => heard++);
    for (const element of [sheet, preload, icon]) element.dispatchEvent(new Event('error'));
    expect(heard).toBe(1);
    expect(sheet.isConnected).toBe(false);
    expect(preload.isConnected).toBe(false);
    expect(icon.isConnected).toBe(true);
    stop();
    const later = link('stylesheet', '/ui/assets/b.css');
    later.dispatchEvent(new Event('error'));
    expect(later.isConnected).toBe(true);
  });

  it('leaves links that loaded alone', () => {
    const stop = forgetFailedLinks(document);
    const sheet = link('stylesheet', '/ui/assets/c.css');
    sheet.dispatchEvent(new Event('load'));
    expect(sheet.isConnected).toBe(true);
    stop();
  });
});

describe('loadViewCode', () => {
  it('answers the first load when it works, without asking the node', async () => {
    let asked = 0;
    const load = loadViewCode(
      () => Promise.resolve('view'),
      () => {
        asked++;
        return Promise.resolve();
      },
    );
    expect(await load()).toBe('view');
    expect(asked).toBe(0);
  });

  it('tries once more when the node answers again, and answers that', async () => {
    const events: string[] = [];
    let tries = 0;
    const load = loadViewCode(
      () => {
        events.push(`load ${++tries}`);
        return tries === 1 ? Promise.reject(new TypeError('Failed to fetch dynamically imported module')) : Promise.resolve('view');
      },
      () => {
        events.push('node answers');
        return Promise.resolve();
      },
    );
    expect(await load()).toBe('view');
    expect(events).toEqual(['load 1', 'node answers', 'load 2']);
  });

  it('fails with ViewCodeUnavailable, carrying the cause, when the second try fails too', async () => {
    const cause = new Error('Unable to preload CSS for /ui/assets/a.css');
    const load = loadViewCode(
      () => Promise.reject(cause),
      () => Promise.resolve(),
    );
    const error: unknown = await load().catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ViewCodeUnavailable);
    expect((error as ViewCodeUnavailable).cause).toBe(cause);
  });
});

describe('reloadOnto', () => {
  function env(start: number) {
    const kept = new Map<string, string>();
    const reloads: string[] = [];
    let now = start;
    return {
      reloads,
      later: (ms: number) => (now += ms),
      env: {
        storage: { getItem: (key: string) => kept.get(key) ?? null, setItem: (key: string, value: string) => void kept.set(key, value) },
        now: () => now,
        reloadAt: (href: string) => void reloads.push(href),
      },
      kept,
    };
  }

  it('loads the page again on the view asked for, then not again within a minute, then again after', () => {
    const rig = env(1_000_000);
    expect(reloadOnto('#/teams', rig.env)).toBe(true);
    expect(rig.reloads).toEqual(['#/teams']);
    expect(rig.kept.get(RELOAD_KEY)).toBe('1000000');
    rig.later(RELOAD_SPACING_MS - 1);
    expect(reloadOnto('#/teams', rig.env)).toBe(false);
    expect(rig.reloads).toEqual(['#/teams']);
    rig.later(1);
    expect(reloadOnto('#/settings', rig.env)).toBe(true);
    expect(rig.reloads).toEqual(['#/teams', '#/settings']);
  });
});

describe('untilAnswered', () => {
  it('asks again while nothing answers, and stops at any answer, a refusal included', async () => {
    const slept: number[] = [];
    let asks = 0;
    const unreachable = new Error('unreachable');
    const refused = Object.assign(new Error('refused'), { status: 401 });
    await untilAnswered(
      () => (++asks < 3 ? Promise.reject(unreachable) : Promise.reject(refused)),
      (error) => error === refused,
      1_000,
      (ms) => {
        slept.push(ms);
        return Promise.resolve();
      },
    );
    expect(asks).toBe(3);
    expect(slept).toEqual([1_000, 1_000]);
  });
});
