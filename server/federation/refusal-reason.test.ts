import { describe, expect, it } from 'vitest';
import { REFUSAL_REASON_MAX_CHARS, refusalReason } from './refusal-reason.ts';

const answer = (contentType: string, body: unknown) => ({
  status: 403,
  retryAfterSeconds: null,
  contentType,
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
});

describe('refusalReason', () => {
  it("keeps a node's JSON detail, without the Refused: prefix", () => {
    expect(refusalReason(answer('application/json', { detail: 'Refused: b.test/carol only accepts messages from contacts' }))).toBe(
      'b.test/carol only accepts messages from contacts',
    );
  });

  it('renders a validation list as loc: msg pairs', () => {
    const detail = [
      { loc: ['body', 'to'], msg: 'required', type: 'missing' },
      { loc: ['body', 'v'], msg: 'must be 1', type: 'value_error' },
    ];
    expect(refusalReason(answer('application/json', { detail }))).toBe('body.to: required; body.v: must be 1');
  });

  it('takes nothing from an answer that is not a JSON {detail} refusal', () => {
    expect(refusalReason(answer('text/plain', 'db_password=hunter2'))).toBeNull();
    expect(refusalReason(answer('text/html', { detail: 'looks like JSON, says it is HTML' }))).toBeNull();
    expect(refusalReason(answer('application/json', 'db_password=hunter2'))).toBeNull();
    expect(refusalReason(answer('application/json', ['detail']))).toBeNull();
    expect(refusalReason(answer('application/json', { detail: 42 }))).toBeNull();
    expect(refusalReason(answer('application/json', { detail: [{ secret: 'x' }] }))).toBeNull();
    expect(refusalReason(answer('application/json', { detail: ' \u0000\u001b ' }))).toBeNull();
  });

  it('strips control and format characters and caps the length', () => {
    const reason = refusalReason(answer('application/json', { detail: `a\u0000b\u001b[2Jc\u202ed\r\ne${'é'.repeat(1_000)}` }))!;
    expect(reason.startsWith('a b [2Jc d e')).toBe(true);
    expect(reason).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    expect([...reason]).toHaveLength(REFUSAL_REASON_MAX_CHARS);
    expect(reason.endsWith('…')).toBe(true);
  });
});
