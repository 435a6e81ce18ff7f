import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { clockSetting, pinnedClock, systemClock } from './clock.js';

describe('the clock', () => {
  it('reads a setting as a date (noon UTC) or an instant with its offset, optionally @ when the system clock read it', () => {
    const reads = (text: string) => clockSetting(text)?.reads.toISOString();
    expect(reads('2027-01-02')).toBe('2027-01-02T12:00:00.000Z');
    expect(reads(' 2027-04-01 ')).toBe('2027-04-01T12:00:00.000Z');
    expect(reads('2027-01-02T08:30:00Z')).toBe('2027-01-02T08:30:00.000Z');
    expect(reads('2027-01-02T08:30Z')).toBe('2027-01-02T08:30:00.000Z');
    expect(reads('2027-01-02T00:30:00.250+01:00')).toBe('2027-01-01T23:30:00.250Z');
    expect(clockSetting('2027-01-02')?.at).toBeUndefined();
    expect(clockSetting('2027-01-02T12:00:00.000Z@2026-11-28T17:40:00.125Z')).toEqual({
      reads: new Date('2027-01-02T12:00:00.000Z'),
      at: new Date('2026-11-28T17:40:00.125Z'),
    });
    for (const wrong of [
      '',
      'tomorrow',
      '2027-02-30',
      '2027-02-30T10:00:00Z',
      '2027-13-01',
      '2027-01-02T08:30:00',
      '02.01.2027',
      '1798891200000',
      '2027-01-02@2026-11-28',
      '2027-01-02@',
      '2027-01-02T12:00:00Z@2026-11-28T17:40:00Z@2026-11-28T17:40:00Z',
    ]) {
      expect(clockSetting(wrong), wrong).toBeUndefined();
    }
  });

  it('agrees to the millisecond with every other clock of the same setting, however late it is made', async () => {
    const setting = { reads: new Date('2027-01-02T12:00:00.000Z'), at: new Date(Date.now() - 5_000) };
    const early = pinnedClock(setting);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const late = pinnedClock(setting);
    // Read within one millisecond of the system clock's (a round it ticked in is read again).
    let readings: number[] = [];
    for (let round = 0; round < 100; round += 1) {
      const before = Date.now();
      readings = [before, early.now().getTime(), late.now().getTime()];
      if (Date.now() === before) break;
    }
    const [system, one, two] = readings as [number, number, number];
    expect(one - system).toBe(setting.reads.getTime() - setting.at.getTime());
    expect(two).toBe(one);
  });

  it('starts where it is told and moves on with real time', async () => {
    const start = new Date('2027-01-02T23:59:59.900Z');
    const clock = pinnedClock({ reads: start });
    const first = clock.now().getTime();
    expect(first - start.getTime()).toBeGreaterThanOrEqual(0);
    expect(first - start.getTime()).toBeLessThan(50);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const later = clock.now().getTime();
    expect(later - first).toBeGreaterThanOrEqual(140);
    expect(later - first).toBeLessThan(1_000);
    // Past midnight in UTC by now; still January 2 in New York, already January 3 in Tokyo.
    expect(clock.today('UTC')).toBe('2027-01-03');
    expect(clock.today('America/New_York')).toBe('2027-01-02');
    expect(clock.today('Asia/Tokyo')).toBe('2027-01-03');
  });

  it('is the system clock by default', () => {
    const before = Date.now();
    const now = systemClock.now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now - before).toBeLessThan(1_000);
  });

  it('is pinned by TEST_CLOCK in tests alone: a process of any other kind refuses it', () => {
    const environment = { AUTH_SECRET: 'a'.repeat(32), ENCRYPTION_KEY: 'b'.repeat(32), DATABASE_URL: 'postgres://localhost/tally' };
    expect(loadConfig({ NODE_ENV: 'test', TEST_CLOCK: '2027-04-01' }).testClock?.reads.toISOString()).toBe('2027-04-01T12:00:00.000Z');
    expect(loadConfig({ NODE_ENV: 'test' }).testClock).toBeUndefined();
    expect(loadConfig({ NODE_ENV: 'production', ...environment }).testClock).toBeUndefined();
    expect(() => loadConfig({ NODE_ENV: 'production', TEST_CLOCK: '2027-04-01', ...environment })).toThrow('TEST_CLOCK is honoured only with NODE_ENV=test');
    expect(() => loadConfig({ TEST_CLOCK: '2027-04-01' })).toThrow('TEST_CLOCK is honoured only with NODE_ENV=test');
    expect(() => loadConfig({ NODE_ENV: 'test', TEST_CLOCK: 'next week' })).toThrow(/TEST_CLOCK: must be a date/);
  });
});
