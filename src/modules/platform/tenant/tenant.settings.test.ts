import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { settingsOf, timezoneOf } from './tenant.settings.js';

const root = path.resolve(import.meta.dirname, '../../../..');

/** Whether date-holidays is loaded in a fresh process after it calls `call` on settings with a holiday region. */
async function loadsHolidays(call: 'settingsOf' | 'timezoneOf'): Promise<boolean> {
  const script = `
    import { createRequire } from 'node:module';
    import { ${call} } from './src/modules/platform/tenant/tenant.settings.ts';
    ${call}({ settings: { timezone: 'Europe/Berlin', holidayRegion: 'DE-BY' } });
    const loaded = Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/date-holidays/'));
    process.stdout.write(String(loaded));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root });
  return stdout === 'true';
}

describe('timezoneOf', () => {
  it('reads the zone as settingsOf does: the stored one when valid, else the default', () => {
    for (const settings of [{ timezone: 'Europe/Berlin', holidayRegion: 'DE-BY' }, { timezone: 'Mars/Olympus' }, {}, null]) {
      expect(timezoneOf({ settings })).toBe(settingsOf({ settings }).timezone);
    }
    expect(timezoneOf({ settings: { timezone: 'America/New_York' } })).toBe('America/New_York');
    expect(timezoneOf({ settings: { timezone: 42 } })).toBe('UTC');
  });

  it('does not load date-holidays, which checking every setting does', async () => {
    const [whole, zone] = await Promise.all([loadsHolidays('settingsOf'), loadsHolidays('timezoneOf')]);
    expect(whole).toBe(true);
    expect(zone).toBe(false);
  }, 60_000);
});
