/**
 * The retention rule as a function of dates (every backup of the last 7 days, the newest of each
 * calendar week for 8 weeks, of each month for a year, always the newest), and applied to a real
 * folder: the manifests it drops are deleted, then exactly the chunks no kept manifest names.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '../../store/database.ts';
import { BackupFolder } from './folder.ts';
import { writeBackup } from './index.ts';
import { backupKeys } from './keys.ts';
import { backupsToKeep } from './retention.ts';
import { readManifest } from './write-backup.ts';

const root = mkdtempSync(join(tmpdir(), 'svc-backup-retention-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const DAY = 24 * 60 * 60 * 1000;
const kept = (times: Date[], now: Date) =>
  [
    ...backupsToKeep(
      times.map((at) => ({ id: at.toISOString().slice(0, 10), at })),
      now,
    ),
  ].sort();

describe('which backups are kept', () => {
  it('keeps every day of the last week, each week’s newest for 8 weeks and each month’s for a year', () => {
    // A backup every day at 03:00 for 13 months; "now" is Monday 2026-12-07, noon.
    const daily = Array.from({ length: 402 }, (_, i) => new Date(Date.UTC(2025, 10, 1, 3) + i * DAY));
    expect(kept(daily, new Date('2026-12-07T12:00:00Z'))).toEqual([
      // Monthly: the last backup of each month less than a year old.
      '2025-12-31',
      '2026-01-31',
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
      '2026-05-31',
      '2026-06-30',
      '2026-07-31',
      '2026-08-31',
      '2026-09-30',
      // Weekly: the Sunday ending each week less than 8 weeks old; October's and November's month-ends.
      '2026-10-18',
      '2026-10-25',
      '2026-10-31',
      '2026-11-01',
      '2026-11-08',
      '2026-11-15',
      '2026-11-22',
      '2026-11-29',
      '2026-11-30',
      // Daily: the last 7 days.
      '2026-12-01',
      '2026-12-02',
      '2026-12-03',
      '2026-12-04',
      '2026-12-05',
      '2026-12-06',
      '2026-12-07',
    ]);
  });

  it('keeps a kept week’s or month’s backup until it ages out of its tier, not a day less', () => {
    const daily = Array.from({ length: 120 }, (_, i) => new Date(Date.UTC(2026, 7, 1, 3) + i * DAY));
    let previous = new Set<string>();
    for (let day = 0; day < 60; day++) {
      const now = new Date(Date.UTC(2026, 10, 29, 12) + day * DAY);
      const today = new Set(kept(daily, now));
      // Nothing dropped today was younger than 7 days, or the newest of a week younger than 8 weeks.
      for (const id of previous) {
        if (today.has(id)) continue;
        const age = now.getTime() - Date.parse(`${id}T03:00:00Z`);
        expect(age, id).toBeGreaterThanOrEqual(7 * DAY);
        const sunday = new Date(`${id}T00:00:00Z`).getUTCDay() === 0;
        if (sunday) expect(age, id).toBeGreaterThanOrEqual(56 * DAY);
      }
      previous = today;
    }
  });

  it('always keeps the newest backup, however old, and nothing of an empty folder', () => {
    expect(kept([new Date('2020-01-01T00:00:00Z'), new Date('2020-01-02T00:00:00Z')], new Date('2026-12-07T00:00:00Z'))).toEqual(['2020-01-02']);
    expect(kept([], new Date())).toEqual([]);
  });
});

describe('retention in a folder', () => {
  it('deletes the manifests it drops, then the chunks only they named', async () => {
    const db = openDatabase({ file: join(root, 'data', 'node.db'), key: randomBytes(32) });
    const backupKey = randomBytes(32);
    const dir = join(root, 'backups');
    try {
      const times = ['2026-01-05T10:00:00.000Z', '2026-01-06T10:00:00.000Z', '2026-12-07T10:00:00.000Z'];
      const results = [];
      let chunksBefore: string[] = [];
      for (const [i, at] of times.entries()) {
        chunksBefore = existsSync(join(dir, 'chunks')) ? readdirSync(join(dir, 'chunks')) : [];
        // Rows of a table of their own each time, so each backup has chunks the others do not.
        db.transaction(() => {
          for (let n = 0; n < 300; n++) db.prepare('INSERT INTO node_settings (key, value) VALUES (?, ?)').run(`r-${i}-${n}`, randomBytes(200).toString('hex'));
        })();
        results.push(await writeBackup({ db, dir, backupKey, nodeId: 'n', now: new Date(at) }));
      }
      // January 5th is neither January's newest nor recent: dropped. January 6th is its month's newest.
      expect(results.at(-1)).toMatchObject({ kept: 2, removed: 1 });
      expect(readdirSync(join(dir, 'manifests')).sort()).toEqual(['20260106T100000000Z.manifest', '20261207T100000000Z.manifest']);

      const folder = new BackupFolder(dir);
      const keys = backupKeys(backupKey);
      const named = new Set<string>();
      for (const id of await folder.backupIds()) for (const chunk of (await readManifest(folder, keys, id))?.chunks ?? []) named.add(chunk.name);
      const chunksAfter = new Set(readdirSync(join(dir, 'chunks')));
      expect(chunksAfter).toEqual(named);
      // Chunks only January 5th named were there before the last backup, and are gone.
      expect(chunksBefore.filter((name) => !chunksAfter.has(name)).length).toBeGreaterThan(0);
    } finally {
      closeDatabase(db);
    }
  });
});
