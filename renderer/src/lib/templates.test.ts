import { describe, expect, it } from 'vitest';
import type { TemplateLimits } from '../api/docs.ts';
import { emptyMetric, emptySection, emptySlotForm, itemLines, slotFormFromSlots, slotsFromForm, slotsProblem, type SlotForm } from './templates.ts';

const PITCH = ['cover', 'metrics', 'sections', 'ask'] as const;

function form(patch: Partial<SlotForm> = {}): SlotForm {
  return { ...emptySlotForm(), ...patch };
}

describe('itemLines', () => {
  it('keeps one trimmed item per line and drops empty lines', () => {
    expect(itemLines('  A design review \n\n\r\nBudget for Q4\r\n   ')).toEqual(['A design review', 'Budget for Q4']);
    expect(itemLines('')).toEqual([]);
  });
});

describe('slotsFromForm', () => {
  it('always sends the cover, without empty optional strings', () => {
    expect(slotsFromForm(form({ cover: { title: ' Lighthouse ', subtitle: '', eyebrow: '  ' } }), PITCH)).toEqual({ cover: { title: 'Lighthouse' } });
    expect(slotsFromForm(form(), ['cover'])).toEqual({ cover: { title: '' } });
  });

  it('keeps the optional cover strings when typed', () => {
    const slots = slotsFromForm(form({ cover: { title: 'T', subtitle: 'Where we are', eyebrow: 'Q3 update' } }), ['cover']);
    expect(slots).toEqual({ cover: { title: 'T', subtitle: 'Where we are', eyebrow: 'Q3 update' } });
  });

  it('sends sections and metrics, dropping blank rows and empty optional fields', () => {
    const slots = slotsFromForm(
      form({
        cover: { title: 'T', subtitle: '', eyebrow: '' },
        sections: [{ heading: 'Progress', body: 'Shipped.\n' }, emptySection(), { heading: 'Next', body: '  ' }],
        metrics: [
          { label: 'Teams', value: '42', caption: 'up from 30' },
          { label: ' ', value: '', caption: '' },
          { label: 'Retention', value: '91%', caption: '' },
        ],
      }),
      PITCH,
    );
    expect(slots).toEqual({
      cover: { title: 'T' },
      metrics: [
        { label: 'Teams', value: '42', caption: 'up from 30' },
        { label: 'Retention', value: '91%' },
      ],
      sections: [{ heading: 'Progress', body: 'Shipped.' }, { heading: 'Next' }],
    });
  });

  it('keeps a row with a required field left empty, so that the problem can be named', () => {
    const slots = slotsFromForm(form({ sections: [{ heading: '', body: 'Text' }], metrics: [{ label: 'Teams', value: '', caption: '' }] }), PITCH);
    expect(slots.sections).toEqual([{ heading: '', body: 'Text' }]);
    expect(slots.metrics).toEqual([{ label: 'Teams', value: '' }]);
  });

  it('omits empty lists and an empty ask', () => {
    const slots = slotsFromForm(form({ sections: [emptySection()], metrics: [emptyMetric()], ask: { headline: ' ', body: '', items: '\n\n' } }), PITCH);
    expect(slots).toEqual({ cover: { title: '' } });
  });

  it('sends the ask with its items one per line', () => {
    const slots = slotsFromForm(form({ ask: { headline: '', body: 'Two things:', items: 'A design review\n\nBudget for Q4\n' } }), PITCH);
    expect(slots.ask).toEqual({ body: 'Two things:', items: ['A design review', 'Budget for Q4'] });
  });

  it('sends only the slots the template has', () => {
    const filled = form({
      cover: { title: 'T', subtitle: '', eyebrow: '' },
      sections: [{ heading: 'H', body: '' }],
      metrics: [{ label: 'L', value: 'V', caption: '' }],
      ask: { headline: 'Ask', body: '', items: '' },
    });
    expect(Object.keys(slotsFromForm(filled, ['cover', 'sections']))).toEqual(['cover', 'sections']);
    expect(Object.keys(slotsFromForm(filled, ['cover', 'metrics']))).toEqual(['cover', 'metrics']);
    expect(Object.keys(slotsFromForm(filled, PITCH))).toEqual(['cover', 'metrics', 'sections', 'ask']);
  });
});

describe('slotFormFromSlots', () => {
  it('round-trips what slotsFromForm makes', () => {
    const slots = {
      cover: { eyebrow: 'Q3 update', title: 'Project Lighthouse', subtitle: 'Where we are.' },
      metrics: [
        { label: 'Active teams', value: '42', caption: 'up from 30' },
        { label: 'Retention', value: '91%' },
      ],
      sections: [{ heading: 'Progress', body: 'Shipped the document surface.' }],
      ask: { headline: 'Ask', body: 'Two things would unblock us:', items: ['A design review', 'Budget for Q4'] },
    };
    const back = slotFormFromSlots(slots);
    expect(back.ask.items).toBe('A design review\nBudget for Q4');
    expect(slotsFromForm(back, PITCH)).toEqual(slots);
  });

  it('ignores what it does not understand', () => {
    expect(slotFormFromSlots({ cover: 'x', sections: {}, metrics: [null, { label: 3 }], ask: { items: [1, 'a'] } })).toEqual({
      cover: { title: '', subtitle: '', eyebrow: '' },
      sections: [],
      metrics: [
        { label: '', value: '', caption: '' },
        { label: '', value: '', caption: '' },
      ],
      ask: { headline: '', body: '', items: 'a' },
    });
  });
});

/** The node's limits, as GET /v1/templates reports them. */
const LIMITS: TemplateLimits = {
  title: 240,
  subtitle: 2000,
  eyebrow: 240,
  sections: 40,
  heading: 240,
  sectionBody: 16000,
  metrics: 40,
  label: 120,
  value: 120,
  caption: 240,
  headline: 240,
  askBody: 8000,
  items: 40,
  item: 240,
};

describe('slotsProblem', () => {
  it('accepts a complete object', () => {
    expect(
      slotsProblem({ cover: { title: 'T' }, sections: [{ heading: 'H' }], metrics: [{ label: 'L', value: 'V' }], ask: { items: ['a'] } }, LIMITS),
    ).toBeNull();
  });

  it('names the first missing required field', () => {
    expect(slotsProblem({ cover: { title: ' ' } }, LIMITS)).toBe('Give the cover a title.');
    expect(slotsProblem({}, LIMITS)).toBe('Give the cover a title.');
    expect(slotsProblem({ cover: { title: 'T' }, sections: [{ heading: 'H' }, { heading: '', body: 'b' }] }, LIMITS)).toBe('Section 2 needs a heading.');
    expect(slotsProblem({ cover: { title: 'T' }, metrics: [{ label: '', value: '1' }] }, LIMITS)).toBe('Metric 1 needs a label.');
    expect(slotsProblem({ cover: { title: 'T' }, metrics: [{ label: 'L', value: '' }] }, LIMITS)).toBe('Metric 1 needs a value.');
  });

  it('checks the sizes the form cannot limit', () => {
    const many = Array.from({ length: 41 }, (_, i) => `item ${i}`);
    expect(slotsProblem({ cover: { title: 'T' }, ask: { items: many } }, LIMITS)).toMatch(/At most 40 items/);
    expect(slotsProblem({ cover: { title: 'T' }, ask: { items: ['ok', 'x'.repeat(241)] } }, LIMITS)).toMatch(/Item 2 of the ask/);
    const sections = Array.from({ length: 41 }, () => ({ heading: 'H' }));
    expect(slotsProblem({ cover: { title: 'T' }, sections }, LIMITS)).toBe('At most 40 sections.');
  });
});
