import { describe, expect, it } from 'vitest';
import { suggestedTeamDomain, teamDomainProblem, teamIdPreview, teamNameProblem } from './team-form.ts';

describe('the new-team form', () => {
  it('checks a team name by the node’s address-name rule, in words', () => {
    expect(teamNameProblem('platform')).toBeNull();
    expect(teamNameProblem('Platform Team')).toBe('use 1-64 letters, digits, "-" or "_", starting with a letter or digit (no spaces or dots)');
    expect(teamNameProblem('')).toMatch(/^enter a name/);
  });

  it('checks the domain by the namespace rule', () => {
    expect(teamDomainProblem('example.com')).toBeNull();
    expect(teamDomainProblem('https://example.com')).toMatch(/without https/);
  });

  it('starts from the acting identity’s domain, else a domain whose key the node holds', () => {
    const namespaces = [
      { domain: 'other.test', node_controlled: false },
      { domain: 'acme.test', node_controlled: true },
    ];
    expect(suggestedTeamDomain({ address: 'example.com/alice' }, namespaces)).toBe('example.com');
    expect(suggestedTeamDomain({ address: null }, namespaces)).toBe('acme.test');
    expect(suggestedTeamDomain(null, [])).toBe('');
  });

  it('previews the id as the node will store it', () => {
    expect(teamIdPreview(' crew ', 'Example.COM.')).toBe('crew:example.com');
    expect(teamIdPreview('', '')).toBe('name:domain');
  });
});
