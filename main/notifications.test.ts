import { describe, expect, it } from 'vitest';
import { isAppRoute, routeFor } from './navigate.ts';
import { noteFor, routeForItems, summaryFor, WakeNotifications } from './notifications.ts';
import type { Note, Timers, WakeItem } from './notifications.ts';

const mail = (from: string, subject: string, agent = 'agent-bob', endToEnd = false): WakeItem => ({
  agent_id: agent,
  type: 'mail_message',
  from_alias: from,
  from_address: null,
  subject,
  end_to_end: endToEnd,
  priority: 'normal',
  message_id: `m-${from}-${subject.length}`,
  created_at: '2026-01-01T00:00:00Z',
});
const chat = (from: string, preview: string, session = 's1', agent = 'agent-bob'): WakeItem => ({
  agent_id: agent,
  type: 'chat_message',
  from_alias: from,
  from_address: null,
  preview,
  end_to_end: false,
  session_id: session,
  sender_leaving: false,
  sender_rejoining: false,
  message_id: `c-${from}-${preview.length}`,
  created_at: '2026-01-01T00:00:00Z',
});

/** Timers the test advances by hand. */
function manualTimers(): Timers & { fire(): void; pending(): number } {
  const queue: (() => void)[] = [];
  return {
    setTimeout: (callback) => {
      queue.push(callback);
      return queue.length;
    },
    clearTimeout: () => void queue.splice(0),
    fire: () => queue.shift()?.(),
    pending: () => queue.length,
  };
}

describe('noteFor and summaryFor', () => {
  it('words mail and chat the way the brief asks', () => {
    expect(noteFor(mail('alice', 'Lunch?'))).toEqual({ title: 'Mail from alice', body: 'Lunch?' });
    expect(noteFor(chat('alice', 'are you there?'))).toEqual({ title: 'alice', body: 'are you there?' });
    expect(noteFor(mail('alice', ''))).toEqual({ title: 'Mail from alice', body: '(no subject)' });
    expect(noteFor(mail('alice', '', 'agent-bob', true))).toEqual({ title: 'Mail from alice', body: 'End-to-end encrypted' });
    expect(noteFor(chat('alice', 'x'.repeat(500))).body).toHaveLength(160);
  });

  it('sums up a burst by kind and sender', () => {
    expect(summaryFor([mail('alice', 'a'), mail('bob', 'b'), mail('alice', 'c')])).toEqual({
      title: '3 new mail messages',
      body: 'From alice, bob',
    });
    expect(summaryFor([mail('a', '1'), chat('b', '2'), chat('c', '3'), chat('d', '4'), chat('e', '5')])).toEqual({
      title: '1 mail message and 4 chat messages',
      body: 'From a, b, c and 2 others',
    });
  });
});

describe('routes', () => {
  it('links each item to itself, with ids the preload lets through', () => {
    const route = routeFor({ ...mail('alice', 'x'), agent_id: '6f1c0c5e-8a3b-4c55-9a4e-3f2b1d0c9e8a', message_id: 'c1a2b3c4-d5e6-4f70-8a9b-0c1d2e3f4a5b' });
    expect(route).toBe('/mail?identity=6f1c0c5e-8a3b-4c55-9a4e-3f2b1d0c9e8a&message=c1a2b3c4-d5e6-4f70-8a9b-0c1d2e3f4a5b');
    expect(isAppRoute(route)).toBe(true);
    expect(routeFor(chat('alice', 'hi'))).toBe('/chat?identity=agent-bob&session=s1');
  });

  it('sends a burst to what it has in common', () => {
    expect(routeForItems([chat('a', '1'), chat('a', '2')])).toBe('/chat?identity=agent-bob&session=s1');
    expect(routeForItems([chat('a', '1', 's1'), chat('b', '2', 's2')])).toBe('/chat?identity=agent-bob');
    expect(routeForItems([mail('a', '1'), mail('b', '2')])).toBe('/mail?identity=agent-bob');
    expect(routeForItems([mail('a', '1'), chat('b', '2', 's2', 'agent-carol')])).toBe('/chat?identity=agent-carol&session=s2');
  });

  it('lets only known routes and safe ids through', () => {
    expect(isAppRoute('/mail')).toBe(true);
    expect(isAppRoute('/chat?session=abc')).toBe(true);
    for (const bad of [
      'https://evil.test/',
      '/settings',
      '/mail?message=a&message=b',
      '/mail?session=x',
      '/mail?identity=<script>',
      '/mail?identity=a?b',
      '/chat?identity=a&session=b&x=1',
      `/mail?identity=${'a'.repeat(600)}`,
      42,
      null,
    ]) {
      expect(isAppRoute(bad), String(bad)).toBe(false);
    }
  });
});

describe('WakeNotifications', () => {
  function setup(quiet = false) {
    const shown: Note[] = [];
    const routes: string[] = [];
    const timers = manualTimers();
    const notes = new WakeNotifications({
      notifier: { show: (note) => shown.push(note) },
      navigate: (route) => routes.push(route),
      isQuiet: () => quiet,
      timers,
    });
    return { shown, routes, timers, notes };
  }

  it('shows the first item at once, and a click opens it', () => {
    const { shown, routes, notes } = setup();
    notes.push(mail('alice', 'Lunch?'));
    expect(shown.map((n) => [n.title, n.body])).toEqual([['Mail from alice', 'Lunch?']]);
    shown[0]?.onClick?.();
    expect(routes).toEqual(['/mail?identity=agent-bob&message=m-alice-6']);
  });

  it('gathers a burst into one summary after the cooldown', () => {
    const { shown, timers, notes } = setup();
    notes.push(chat('alice', 'one'));
    notes.push(chat('alice', 'two'));
    notes.push(chat('bob', 'three', 's2'));
    notes.push(mail('carol', 'four'));
    expect(shown).toHaveLength(1);
    timers.fire();
    // The first showed at once; the three held back come as one note.
    expect(shown.map((n) => n.title)).toEqual(['alice', '1 mail message and 2 chat messages']);
    expect(shown[1]?.body).toBe('From alice, bob, carol');
    // The summary starts another cooldown; a quiet one ends without a note.
    timers.fire();
    expect(shown).toHaveLength(2);
    expect(timers.pending()).toBe(0);
    notes.push(chat('dave', 'later'));
    expect(shown.at(-1)?.title).toBe('dave');
  });

  it('stays quiet while the window is in front, and after dispose', () => {
    const quiet = setup(true);
    quiet.notes.push(mail('alice', 'x'));
    expect(quiet.shown).toHaveLength(0);

    const { shown, timers, notes } = setup();
    notes.push(mail('alice', 'x'));
    notes.push(mail('bob', 'y'));
    notes.dispose();
    timers.fire();
    notes.push(mail('carol', 'z'));
    expect(shown).toHaveLength(1);
  });
});
