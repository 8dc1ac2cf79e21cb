import { describe, expect, it } from 'vitest';
import { nodeAddresses } from './node-addresses.ts';

describe('Settings’ addresses', () => {
  it('shows one URL once when the three surfaces share it, saying what answers there', () => {
    const one = 'http://127.0.0.1:7777';
    expect(nodeAddresses({ core_url: one, library_url: one, docs_url: one })).toEqual([
      { label: 'This node', url: one, serves: expect.stringMatching(/Mail.*library and documents/) },
    ]);
  });

  it('says what each is for when they differ', () => {
    const rows = nodeAddresses({ core_url: 'http://a', library_url: 'http://b', docs_url: 'http://c' });
    expect(rows.map((row) => [row.label, row.url])).toEqual([
      ['Core', 'http://a'],
      ['Library', 'http://b'],
      ['Documents', 'http://c'],
    ]);
    expect(new Set(rows.map((row) => row.serves)).size).toBe(3);
  });
});
