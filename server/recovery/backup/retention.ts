/**
 * Which backups a folder keeps: every backup of the last 7 days, one a week for 8 weeks, one a
 * month for a year, and always the newest. "One a week" is the newest of each calendar week
 * (Monday to Sunday, UTC), "one a month" the newest of each calendar month: once a week or month
 * is over its kept backup no longer changes, so a backup kept today is not dropped tomorrow for a
 * shifting window's sake, only when it ages out of its tier. Pure: dates in, ids out.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
export const KEEP_ALL_DAYS = 7;
export const KEEP_WEEKLY_WEEKS = 8;
export const KEEP_MONTHLY_DAYS = 365;

export interface DatedBackup {
  id: string;
  at: Date;
}

/** The ids of `backups` to keep at `now`; the rest may be deleted. */
export function backupsToKeep(backups: readonly DatedBackup[], now: Date): Set<string> {
  const newestFirst = [...backups].sort((a, b) => b.at.getTime() - a.at.getTime());
  const keep = new Set<string>();
  const weeks = new Set<string>();
  const months = new Set<string>();
  const newest = newestFirst[0];
  if (newest) keep.add(newest.id);
  for (const backup of newestFirst) {
    const age = now.getTime() - backup.at.getTime();
    if (age < KEEP_ALL_DAYS * DAY_MS) keep.add(backup.id);
    const week = weekOf(backup.at);
    if (age < KEEP_WEEKLY_WEEKS * 7 * DAY_MS && !weeks.has(week)) {
      weeks.add(week);
      keep.add(backup.id);
    }
    const month = backup.at.toISOString().slice(0, 7);
    if (age < KEEP_MONTHLY_DAYS * DAY_MS && !months.has(month)) {
      months.add(month);
      keep.add(backup.id);
    }
  }
  return keep;
}

/** The calendar week (UTC) a time falls in, named by its Monday. */
function weekOf(at: Date): string {
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  const sinceMonday = (day.getUTCDay() + 6) % 7;
  return new Date(day.getTime() - sinceMonday * DAY_MS).toISOString().slice(0, 10);
}
