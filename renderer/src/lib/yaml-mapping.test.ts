import { describe, expect, it } from 'vitest';
import { yamlMapping } from './yaml-mapping.ts';

class FileError extends Error {}
const refuse = (message: string) => new FileError(message);

describe('yamlMapping', () => {
  it('reads a mapping of fields', () => {
    expect(yamlMapping('id: crew\nversion: 1.0.0\n', 'blueprint.yaml', 'id: …', refuse).toJS()).toEqual({ id: 'crew', version: '1.0.0' });
  });

  it('names the file and the line of a parse error, in one line, with the caller’s error', () => {
    let caught: unknown;
    try {
      yamlMapping('id: crew\nname: Crew\nid: again\n', 'profile.yaml', 'id: …', refuse);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FileError);
    expect((caught as Error).message).toBe('profile.yaml does not parse (line 3): Map keys must be unique');
  });

  it('refuses a file that is not a mapping, saying which fields it should have', () => {
    expect(() => yamlMapping('- one\n- two\n', 'blueprint.yaml', 'id: …, version: …', refuse)).toThrow(
      'blueprint.yaml must be a mapping of fields (id: …, version: …).',
    );
  });
});
