import { describe, expect, it } from 'vitest';
import { redactUrl } from './log-redact.ts';

const TOKEN = 'Itcj6Q5bbH3xC_TeEejQekvYpBAU5uFFQtQTk-QqECs';

describe('redactUrl', () => {
  it('hides present-link tokens on the pages and in the revoke route', () => {
    expect(redactUrl(`/present/${TOKEN}`)).toBe('/present/[redacted]');
    expect(redactUrl(`/present/${TOKEN}/edit`)).toBe('/present/[redacted]/edit');
    expect(redactUrl(`/v1/present/${TOKEN}/revoke`)).toBe('/v1/present/[redacted]/revoke');
  });

  it('hides one-time upload tokens in the query, keeping the rest', () => {
    expect(redactUrl('/v1/assets/abc/upload?token=secret123&x=1')).toBe('/v1/assets/abc/upload?token=[redacted]&x=1');
  });

  it("hides a search's words, keeping its filters", () => {
    expect(redactUrl('/v1/search?q=quarterly%20numbers&kind=mail')).toBe('/v1/search?q=[redacted]&kind=mail');
    expect(redactUrl('/v1/node/search?kind=chat&q=secret')).toBe('/v1/node/search?kind=chat&q=[redacted]');
    expect(redactUrl('/v1/search?query=x&faq=1')).toBe('/v1/search?query=x&faq=1');
  });

  it('leaves other URLs alone, link ids included', () => {
    expect(redactUrl('/v1/present')).toBe('/v1/present');
    expect(redactUrl('/v1/present/preview')).toBe('/v1/present/preview');
    expect(redactUrl('/v1/present/7c9e6679-7425-40de-944b-e07fc1f90ae7/revoke')).toBe('/v1/present/7c9e6679-7425-40de-944b-e07fc1f90ae7/revoke');
    expect(redactUrl('/v1/messages/inbox?limit=10')).toBe('/v1/messages/inbox?limit=10');
  });
});
