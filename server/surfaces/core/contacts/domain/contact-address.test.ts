import { describe, expect, it } from 'vitest';
import { normalizeContactAddress } from './contact-address.ts';

describe('normalizeContactAddress', () => {
  it('lower-cases the domain part and drops a trailing dot; keeps the name and dids as written', () => {
    expect(normalizeContactAddress('Acme.COM/Alice')).toBe('acme.com/Alice');
    expect(normalizeContactAddress('Acme.com.')).toBe('acme.com');
    expect(normalizeContactAddress('acme.com./alice')).toBe('acme.com/alice');
    expect(normalizeContactAddress('did:key:z6MkAbC')).toBe('did:key:z6MkAbC');
    expect(normalizeContactAddress('did:svc:AbC')).toBe('did:svc:AbC');
  });

  it('keeps what is not a domain as it is', () => {
    expect(normalizeContactAddress('not_a_domain/x')).toBe('not_a_domain/x');
  });
});
