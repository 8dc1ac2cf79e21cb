import { describe, expect, it } from 'vitest';
import { nestInstructions } from './nest-headings.ts';

describe('instructions nested under AGENTS.md’s "## Instructions"', () => {
  it('drops the opening title, which AGENTS.md already shows', () => {
    expect(nestInstructions('# Code reviewer\n\nRead the diff twice.\n')).toBe('Read the diff twice.\n');
    expect(nestInstructions('\n\n# Code reviewer\nRead.')).toBe('Read.');
  });

  it('moves the remaining headings down so the shallowest is a ###', () => {
    expect(nestInstructions('# Reviewer\n\n## Before\n\nx\n\n### Detail\n\ny\n')).toBe('### Before\n\nx\n\n#### Detail\n\ny\n');
    expect(nestInstructions('Intro\n\n# Steps\n\n## One\n')).toBe('Intro\n\n### Steps\n\n#### One\n');
    expect(nestInstructions('##### Deep\n###### Deeper\n')).toBe('##### Deep\n###### Deeper\n');
    expect(nestInstructions('## A\n###### F\n')).toBe('### A\n###### F\n');
  });

  it('leaves text without headings, hashtags and fenced code alone', () => {
    expect(nestInstructions('Run the tests first.\n\n')).toBe('Run the tests first.\n\n');
    expect(nestInstructions('## Run\n\n```sh\n# not a heading\nmake\n```\n#hashtag\n')).toBe('### Run\n\n```sh\n# not a heading\nmake\n```\n#hashtag\n');
    expect(nestInstructions('```\n# Title in code\n```\n')).toBe('```\n# Title in code\n```\n');
  });
});
