import { describe, expect, it } from 'vitest';
import { MAX_CHAT_MESSAGE_BYTES } from '../../../../../contract/core/chat.ts';
import { assertMessageSize, preview, PREVIEW_CHARS } from './messages.ts';

describe('assertMessageSize', () => {
  it('counts UTF-8 bytes, not characters', () => {
    expect(() => assertMessageSize('a'.repeat(MAX_CHAT_MESSAGE_BYTES), 'body')).not.toThrow();
    expect(() => assertMessageSize('é'.repeat(MAX_CHAT_MESSAGE_BYTES / 2 + 1), 'body')).toThrow(`body is ${MAX_CHAT_MESSAGE_BYTES + 2} bytes`);
  });
});

describe('preview', () => {
  it('keeps a short body and cuts a long one', () => {
    expect(preview('hi')).toBe('hi');
    expect(preview('x'.repeat(PREVIEW_CHARS + 1))).toHaveLength(PREVIEW_CHARS);
  });
});
