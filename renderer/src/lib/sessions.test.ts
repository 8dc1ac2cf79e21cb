import { describe, expect, it } from 'vitest';
import { sessionClientLabel } from './sessions.ts';

describe('sessionClientLabel', () => {
  it('names the browser and the system', () => {
    expect(sessionClientLabel('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36')).toBe('Chrome on Linux');
    expect(sessionClientLabel('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/140.0.0.0 Safari/537.36')).toBe(
      'Chrome on Linux',
    );
    expect(sessionClientLabel('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36 Edg/131.0')).toBe(
      'Edge on Windows',
    );
    expect(sessionClientLabel('Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:128.0) Gecko/20100101 Firefox/128.0')).toBe('Firefox on macOS');
    expect(sessionClientLabel('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15')).toBe(
      'Safari on macOS',
    );
    expect(
      sessionClientLabel(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      ),
    ).toBe('Safari on iOS');
  });

  it('says what it can of anything else', () => {
    expect(sessionClientLabel(null)).toBe('Unknown browser');
    expect(sessionClientLabel('  ')).toBe('Unknown browser');
    expect(sessionClientLabel('curl/8.5.0')).toBe('curl');
    expect(sessionClientLabel('node')).toBe('node');
    expect(sessionClientLabel('Mozilla/5.0 (X11; Linux x86_64) SomeEngine/1.0')).toBe('A browser on Linux');
  });
});
