import { describe, expect, it } from 'vitest';
import { isAllowedNavigation, isPermissionAllowed, isSafeExternalUrl } from './security.ts';

describe('isSafeExternalUrl', () => {
  it('allows http, https and mailto', () => {
    expect(isSafeExternalUrl('https://example.com/path?q=1')).toBe(true);
    expect(isSafeExternalUrl('http://example.com')).toBe(true);
    expect(isSafeExternalUrl('mailto:alice@example.com')).toBe(true);
  });

  it('refuses every other scheme', () => {
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,<script>1</script>',
      'app://svc-node/index.html',
      'smb://server/share',
      'ms-msdt:/id',
      'vbscript:x',
      'chrome://settings',
    ]) {
      expect(isSafeExternalUrl(url), url).toBe(false);
    }
  });

  it('refuses malformed URLs, credentials and empty mailto', () => {
    expect(isSafeExternalUrl('not a url')).toBe(false);
    expect(isSafeExternalUrl('')).toBe(false);
    expect(isSafeExternalUrl('https://user:pass@example.com')).toBe(false);
    expect(isSafeExternalUrl('https://google.com@evil.example')).toBe(false);
    expect(isSafeExternalUrl('mailto:')).toBe(false);
  });
});

describe('isAllowedNavigation', () => {
  it('allows only our app:// origin', () => {
    expect(isAllowedNavigation('app://svc-node/index.html')).toBe(true);
    expect(isAllowedNavigation('app://svc-node/index.html#/settings')).toBe(true);
    expect(isAllowedNavigation('app://other/index.html')).toBe(false);
    expect(isAllowedNavigation('https://svc-node/')).toBe(false);
    expect(isAllowedNavigation('http://127.0.0.1:4000/ui/')).toBe(false);
    expect(isAllowedNavigation('file:///tmp/index.html')).toBe(false);
    expect(isAllowedNavigation('garbage')).toBe(false);
  });
});

describe('isPermissionAllowed', () => {
  it('grants notifications, loopback access and clipboard writes to our pages only', () => {
    expect(isPermissionAllowed('notifications', 'app://svc-node/index.html')).toBe(true);
    expect(isPermissionAllowed('notifications', 'app://svc-node')).toBe(true);
    expect(isPermissionAllowed('loopback-network', 'app://svc-node/index.html')).toBe(true);
    expect(isPermissionAllowed('clipboard-sanitized-write', 'app://svc-node/index.html')).toBe(true);
    expect(isPermissionAllowed('clipboard-sanitized-write', 'https://example.com/')).toBe(false);
    expect(isPermissionAllowed('notifications', 'https://example.com/')).toBe(false);
    expect(isPermissionAllowed('loopback-network', 'https://example.com/')).toBe(false);
  });

  it('denies everything else', () => {
    for (const permission of ['media', 'geolocation', 'clipboard-read', 'midi', 'openExternal', 'fullscreen', 'unknown']) {
      expect(isPermissionAllowed(permission, 'app://svc-node/index.html'), permission).toBe(false);
    }
  });
});
