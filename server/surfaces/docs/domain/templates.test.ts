import { describe, expect, it } from 'vitest';
import { validationIssues } from '../../../../test/support/expect.ts';
import { describeTemplate, escapeCell, LIMITS, listTemplates, renderTemplate, templateName, TEMPLATE_NAMES } from './templates.ts';

const cover = { title: 'Lighthouse', subtitle: 'Where we are.', eyebrow: 'Q3' };
const render = (name: string, slots: Record<string, unknown>) => renderTemplate({ name, slots }, ['body']);
const locs = (fn: () => unknown) => validationIssues(fn).map((issue) => issue.loc.join('.'));

describe('pitch', () => {
  it('renders cover, metrics, sections and ask in order, joined by blank lines', () => {
    const markdown = render('pitch', {
      cover,
      metrics: [
        { label: 'Teams', value: '42', caption: 'up' },
        { label: 'Churn', value: '3%' },
      ],
      sections: [{ heading: 'Progress', body: 'Shipped.' }, { heading: 'Risks' }],
      ask: { body: 'We need:', items: ['Review', 'Budget'] },
    });
    expect(markdown).toBe(
      [
        '_Q3_',
        '# Lighthouse',
        'Where we are.',
        '## Metrics',
        '| Metric | Value | Notes |\n| --- | --- | --- |\n| Teams | 42 | up |\n| Churn | 3% |  |',
        '## Progress',
        'Shipped.',
        '## Risks',
        '## Ask',
        'We need:',
        '- Review\n- Budget',
      ].join('\n\n') + '\n',
    );
  });

  it('uses the ask headline when given', () => {
    expect(render('pitch', { cover: { title: 'T' }, ask: { headline: 'Our ask' } })).toBe('# T\n\n## Our ask\n');
  });
});

describe('memo', () => {
  it('renders cover and sections only', () => {
    expect(render('memo', { cover: { title: 'Memo' }, sections: [{ heading: 'One', body: 'First.' }] })).toBe('# Memo\n\n## One\n\nFirst.\n');
  });

  it('refuses the slots it does not allow', () => {
    expect(locs(() => render('memo', { cover, metrics: [], ask: {} }))).toEqual(['body.slots.metrics', 'body.slots.ask']);
  });
});

describe('metrics', () => {
  it('renders cover and the metrics table', () => {
    expect(render('metrics', { cover: { title: 'KPIs' }, metrics: [{ label: 'A', value: '1' }] })).toBe(
      '# KPIs\n\n## Metrics\n\n| Metric | Value | Notes |\n| --- | --- | --- |\n| A | 1 |  |\n',
    );
  });

  it('renders no table for an empty list and refuses sections', () => {
    expect(render('metrics', { cover: { title: 'KPIs' }, metrics: [] })).toBe('# KPIs\n');
    expect(locs(() => render('metrics', { cover, sections: [] }))).toEqual(['body.slots.sections']);
  });
});

describe('validation', () => {
  it('normalises the name and refuses an unknown one', () => {
    expect(templateName('  PiTcH ')).toBe('pitch');
    expect(render(' MEMO ', { cover: { title: 'x' } })).toBe('# x\n');
    const issues = validationIssues(() => render('deck', { cover }));
    expect(issues[0]).toMatchObject({ loc: ['body', 'name'], msg: 'Unknown template: deck' });
  });

  it('requires the cover and its title', () => {
    expect(locs(() => render('memo', {}))).toEqual(['body.slots.cover']);
    expect(locs(() => renderTemplate({ name: 'memo' }, ['body']))).toEqual(['body.slots.cover']);
    expect(locs(() => render('memo', { cover: { subtitle: 'no title' } }))).toEqual(['body.slots.cover.title']);
    expect(locs(() => render('memo', { cover: { title: '   ' } }))).toEqual(['body.slots.cover.title']);
  });

  it('refuses unknown keys inside slots', () => {
    const issues = validationIssues(() => render('pitch', { cover: { title: 'x', color: 'red' } }));
    expect(issues[0]!.loc).toEqual(['body', 'slots', 'cover']);
    expect(issues[0]!.msg).toMatch(/color/);
    expect(locs(() => render('pitch', { cover, sections: [{ heading: 'h', extra: 1 }] }))).toEqual(['body.slots.sections.0']);
  });

  it('trims strings before checking and rendering them', () => {
    expect(render('memo', { cover: { title: '  Spaced  ', eyebrow: ' e ' }, sections: [{ heading: ' H ', body: '\n body \n' }] })).toBe(
      '_e_\n\n# Spaced\n\n## H\n\nbody\n',
    );
    // Exactly at the limit once trimmed.
    expect(() => render('memo', { cover: { title: `  ${'t'.repeat(LIMITS.title)}  ` } })).not.toThrow();
  });

  it.each([
    ['cover.title', { cover: { title: 't'.repeat(LIMITS.title + 1) } }],
    ['cover.subtitle', { cover: { title: 't', subtitle: 's'.repeat(LIMITS.subtitle + 1) } }],
    ['cover.eyebrow', { cover: { title: 't', eyebrow: 'e'.repeat(LIMITS.eyebrow + 1) } }],
    ['sections', { cover, sections: Array.from({ length: LIMITS.sections + 1 }, () => ({ heading: 'h' })) }],
    ['sections.0.heading', { cover, sections: [{ heading: 'h'.repeat(LIMITS.heading + 1) }] }],
    ['sections.0.body', { cover, sections: [{ heading: 'h', body: 'b'.repeat(LIMITS.sectionBody + 1) }] }],
    ['metrics', { cover, metrics: Array.from({ length: LIMITS.metrics + 1 }, () => ({ label: 'l', value: 'v' })) }],
    ['metrics.0.label', { cover, metrics: [{ label: 'l'.repeat(LIMITS.label + 1), value: 'v' }] }],
    ['metrics.0.value', { cover, metrics: [{ label: 'l', value: 'v'.repeat(LIMITS.value + 1) }] }],
    ['metrics.0.caption', { cover, metrics: [{ label: 'l', value: 'v', caption: 'c'.repeat(LIMITS.caption + 1) }] }],
    ['metrics.0.value', { cover, metrics: [{ label: 'l' }] }],
    ['ask.headline', { cover, ask: { headline: 'h'.repeat(LIMITS.headline + 1) } }],
    ['ask.body', { cover, ask: { body: 'b'.repeat(LIMITS.askBody + 1) } }],
    ['ask.items', { cover, ask: { items: Array.from({ length: LIMITS.items + 1 }, () => 'i') } }],
    ['ask.items.0', { cover, ask: { items: ['i'.repeat(LIMITS.item + 1)] } }],
  ])('enforces the limit on %s', (path, slots) => {
    expect(locs(() => render('pitch', slots))).toEqual([`body.slots.${path}`]);
  });

  it('accepts every list at its maximum length', () => {
    const markdown = render('pitch', {
      cover,
      sections: Array.from({ length: LIMITS.sections }, (_, i) => ({ heading: `h${i}` })),
      metrics: Array.from({ length: LIMITS.metrics }, (_, i) => ({ label: `l${i}`, value: 'v' })),
      ask: { items: Array.from({ length: LIMITS.items }, (_, i) => `i${i}`) },
    });
    expect(markdown.match(/^## h/gm)).toHaveLength(LIMITS.sections);
  });
});

describe('table cells', () => {
  it('escapes pipes and backslashes, turns line breaks into <br> and control characters into spaces', () => {
    expect(escapeCell('a|b')).toBe('a\\|b');
    expect(escapeCell('a\\b')).toBe('a\\\\b');
    expect(escapeCell('one\ntwo\r\nthree\rfour')).toBe('one<br>two<br>three<br>four');
    expect(escapeCell('tab\there\u0000\u007f')).toBe('tab here  ');
    const markdown = render('metrics', { cover: { title: 'x' }, metrics: [{ label: 'a|b', value: '1\n2', caption: 'c\\d' }] });
    expect(markdown).toContain('| a\\|b | 1<br>2 | c\\\\d |');
  });

  it('keeps titles and headings on one line', () => {
    expect(render('memo', { cover: { title: 'two\nlines' }, sections: [{ heading: 'a\r\nb' }] })).toBe('# two lines\n\n## a b\n');
  });
});

describe('discovery', () => {
  it('lists the three built-in templates with their slots', () => {
    expect(listTemplates().map((t) => [t.name, t.slots])).toEqual([
      ['pitch', ['cover', 'metrics', 'sections', 'ask']],
      ['memo', ['cover', 'sections']],
      ['metrics', ['cover', 'metrics']],
    ]);
  });

  it('describes each template with a schema and an example that renders', () => {
    for (const name of TEMPLATE_NAMES) {
      const detail = describeTemplate(name);
      expect(Object.keys((detail.schema.properties as any).slots.properties)).toEqual([...detail.slots]);
      expect(detail.example.name).toBe(name);
      expect(detail.example_markdown).toMatch(/^_Q3 update_\n\n# Project Lighthouse/);
    }
  });
});
