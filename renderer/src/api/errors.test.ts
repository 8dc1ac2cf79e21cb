/**
 * The node's refusals in words: a 422's list of problems becomes one sentence per field with the
 * field's label ("Slug: use at most 64 characters"), zod's stock texts translated, the node's own
 * rule texts kept; and an ApiError carries the problems field by field for the forms.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, detailIssues, errorIssues, errorMessage, fieldLabel, formatDetail, issueSentence, issueWords } from './errors.ts';
import { fetchJson } from './http.ts';

describe('issueWords', () => {
  it('says zod’s stock texts in words', () => {
    expect(issueWords('Too big: expected string to have <=64 characters')).toBe('use at most 64 characters');
    expect(issueWords('Too small: expected string to have >=1 characters')).toBe('this is required');
    expect(issueWords('Invalid input: expected string, received undefined')).toBe('this is required');
    expect(issueWords('Too big: expected number to be <=65535')).toBe('use a number no larger than 65535');
    expect(issueWords('Invalid option: expected one of "public"|"contacts-only"')).toBe('choose one of public, contacts-only');
    expect(issueWords('Unrecognized key: "extra"')).toBe('the node does not take "extra"');
  });

  it('keeps the node’s own rule texts', () => {
    const rule = 'use 1-64 letters, digits, ".", "-" or "_", starting with a letter or digit';
    expect(issueWords(rule)).toBe(rule);
  });
});

describe('a 422 as sentences with labels', () => {
  const detail = [
    { loc: ['body', 'slug'], msg: 'Too big: expected string to have <=64 characters', type: 'too_big' },
    { loc: ['body', 'remote_port'], msg: 'Too big: expected number to be <=65535', type: 'too_big' },
    { loc: ['body'], msg: 'Unrecognized key: "x"', type: 'unrecognized_keys' },
  ];

  it('keeps each problem with its field', () => {
    expect(detailIssues(detail)).toEqual([
      { field: 'slug', message: 'use at most 64 characters' },
      { field: 'remote_port', message: 'use a number no larger than 65535' },
      { field: null, message: 'the node does not take "x"' },
    ]);
    expect(errorIssues({ detail: 'a sentence' })).toEqual([]);
    expect(detailIssues('a sentence')).toEqual([]);
  });

  it('names each field by the form’s label, or a readable one', () => {
    expect(fieldLabel('slug', { slug: 'Project slug' })).toBe('Project slug');
    expect(fieldLabel('remote_port')).toBe('Remote port');
    expect(issueSentence({ field: null, message: 'the node does not take "x"' })).toBe('The node does not take "x"');
    expect(formatDetail(detail, { slug: 'Slug' })).toBe(
      'Slug: use at most 64 characters; Remote port: use a number no larger than 65535; The node does not take "x"',
    );
  });

  it('reaches callers as an ApiError with its problems', async () => {
    const body = { detail: [{ loc: ['body', 'name'], msg: 'use 1-64 letters', type: 'custom' }] };
    const fetch = async () => new Response(JSON.stringify(body), { status: 422, headers: { 'content-type': 'application/json' } });
    const caught = await fetchJson(fetch, 'http://node.test/v1/node/setup', { method: 'POST', headers: {} }).catch((error: unknown) => error);
    expect(caught).toBeInstanceOf(ApiError);
    expect((caught as ApiError).message).toBe('Name: use 1-64 letters');
    expect((caught as ApiError).issues).toEqual([{ field: 'name', message: 'use 1-64 letters' }]);
  });
});

describe('formatDetail and errorMessage', () => {
  it('passes string details through', () => {
    expect(formatDetail('Project slug already exists')).toBe('Project slug already exists');
    expect(errorMessage(409, { detail: 'Project slug already exists' })).toBe('Project slug already exists');
  });

  it('turns validation lists into one readable line', () => {
    const detail = [
      { loc: ['body', 'name'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'slug'], msg: 'String should have at most 63 characters', type: 'string_too_long' },
      { loc: [], msg: 'Something general', type: 'x' },
    ];
    expect(formatDetail(detail)).toBe('Name: Field required; Slug: String should have at most 63 characters; Something general');
  });

  it('falls back to plain words by status, never to raw bodies', () => {
    expect(errorMessage(404, { detail: '' })).toBe('The node does not know that item.');
    expect(errorMessage(422, null)).toBe('Some fields are not valid.');
    expect(errorMessage(418, { error: 'stack trace here' })).toBe('The node answered with an error (HTTP 418).');
    expect(formatDetail({ nested: true })).toBeNull();
  });
});
