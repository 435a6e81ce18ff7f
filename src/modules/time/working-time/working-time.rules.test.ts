/**
 * The rules read against the law's text, one paragraph at a time, and the
 * acceptance week of issue 39 computed by hand.
 */
import { describe, expect, it } from 'vitest';
import { zonedInstant } from '../../../lib/time.js';
import { checkWorkingTime, requiredBreak, type WorkingTimeRuleSet, type WorkInterval } from './working-time.rules.js';

const zone = 'Europe/Berlin';
const clock = (text: string): number => {
  const [hour, minute] = text.split(':').map(Number) as [number, number];
  return hour * 3600 + minute * 60;
};
/** An entry on `date` from `start` to `end` (wall clock in Berlin; an end before the start is the next day). */
function work(date: string, start: string, end: string, breakMinutes = 0): WorkInterval {
  const startedAt = zonedInstant(date, clock(start), zone);
  let endedAt = zonedInstant(date, clock(end), zone);
  if (endedAt <= startedAt) endedAt = new Date(endedAt.getTime() + 86_400_000);
  return { startedAt, endedAt, breakMinutes };
}
const check = (entries: WorkInterval[], ruleSet: WorkingTimeRuleSet = 'de', holidays = new Map<string, string>(), from = '2027-01-01', to = '2027-12-31') =>
  checkWorkingTime({ entries, timezone: zone, holidays, ruleSet, from, to });
const rules = (entries: WorkInterval[], ruleSet: WorkingTimeRuleSet = 'de', holidays?: Map<string, string>) =>
  check(entries, ruleSet, holidays).violations.map((violation) => `${violation.date} ${violation.rule} ${violation.minutes}`);

describe('the acceptance week (Monday 1 to Sunday 7 March 2027, Berlin)', () => {
  const week = [
    work('2027-03-01', '08:00', '15:00'), // Monday: 7 h, no break
    work('2027-03-02', '08:00', '12:00'), // Tuesday: 7:50 h, a 10-minute gap only
    work('2027-03-02', '12:10', '16:00'),
    work('2027-03-03', '07:00', '12:30'), // Wednesday: 11 h net, 30 min of break, ends 18:30
    work('2027-03-03', '13:00', '18:30'),
    work('2027-03-04', '05:00', '09:00'), // Thursday: starts 10.5 h after Wednesday ended; 7.5 h, 30 min break
    work('2027-03-04', '09:30', '13:00'),
    work('2027-03-05', '08:00', '12:00'), // Friday: 8 h, 30 min break, compliant
    work('2027-03-05', '12:30', '16:30'),
    work('2027-03-07', '10:00', '14:00'), // Sunday: 4 h
  ];

  it('gives exactly what the ArbZG names, and nothing on Friday', () => {
    expect(rules(week)).toEqual([
      '2027-03-01 BREAK_MISSING 30',
      '2027-03-02 BREAK_MISSING 30',
      '2027-03-03 BREAK_TOO_SHORT 15',
      '2027-03-03 DAY_OVER_10H 60',
      '2027-03-04 REST_UNDER_11H 30',
      '2027-03-07 SUNDAY_WORK 240',
    ]);
    const result = check(week);
    expect(result.days.map((day) => [day.date, day.workedMinutes, day.breakMinutes, day.lackingBreakMinutes])).toEqual([
      ['2027-03-01', 420, 0, 30],
      ['2027-03-02', 470, 0, 30],
      ['2027-03-03', 660, 30, 15],
      ['2027-03-04', 450, 30, 0],
      ['2027-03-05', 480, 30, 0],
      ['2027-03-07', 240, 0, 0],
    ]);
    expect(result.violations[1]?.detail).toBe('7:50 h worked without a break; gaps under 15 min (10 min) are no breaks');
  });

  it('under the EU directive: a break past 6 h and 11 h of rest only', () => {
    expect(rules(week, 'eu')).toEqual(['2027-03-01 BREAK_MISSING 15', '2027-03-02 BREAK_MISSING 15', '2027-03-04 REST_UNDER_11H 30']);
  });

  it('with the rule set none: nothing', () => {
    expect(rules(week, 'none')).toEqual([]);
  });
});

describe('§4 ArbZG: rest breaks', () => {
  it('"mindestens 30 Minuten bei einer Arbeitszeit von mehr als sechs bis zu neun Stunden und 45 Minuten bei mehr als neun Stunden"', () => {
    expect([360, 361, 540, 541].map(requiredBreak)).toEqual([0, 30, 30, 45]);
    // Exactly 6 h needs no break.
    expect(rules([work('2027-03-01', '08:00', '14:00')])).toEqual([]);
    // 9 h with 30 min is enough; 9:01 h with 30 min is not.
    expect(rules([work('2027-03-01', '07:00', '11:30'), work('2027-03-01', '12:00', '16:30')])).toEqual([]);
    expect(rules([work('2027-03-01', '07:00', '11:30'), work('2027-03-01', '12:00', '16:31')])).toEqual(['2027-03-01 BREAK_TOO_SHORT 15']);
  });

  it('"in Zeitabschnitte von jeweils mindestens 15 Minuten aufgeteilt": two 15-minute breaks are 30, a 14-minute gap is none', () => {
    expect(rules([work('2027-03-01', '08:00', '10:00'), work('2027-03-01', '10:15', '13:00'), work('2027-03-01', '13:15', '16:00')])).toEqual([]);
    // 7:16 h net: the 30-minute gap counts, the 14-minute one does not (30 min counted, enough).
    expect(check([work('2027-03-01', '08:00', '11:00'), work('2027-03-01', '11:14', '12:00'), work('2027-03-01', '12:30', '16:00')]).days[0]).toMatchObject({
      workedMinutes: 436,
      breakMinutes: 30,
    });
    // 7 h with one 14-minute gap and one 15-minute gap: only 15 counted, too short.
    expect(rules([work('2027-03-01', '08:00', '11:00'), work('2027-03-01', '11:14', '12:00'), work('2027-03-01', '12:15', '15:29')])).toEqual([
      '2027-03-01 BREAK_TOO_SHORT 15',
    ]);
  });

  it('a break recorded inside an entry counts when it is 15 minutes or more', () => {
    expect(rules([work('2027-03-01', '08:00', '15:30', 30)])).toEqual([]);
    expect(rules([work('2027-03-01', '08:00', '15:30', 10)])).toEqual(['2027-03-01 BREAK_MISSING 30']);
  });

  it('"Länger als sechs Stunden hintereinander dürfen Arbeitnehmer nicht ohne Ruhepause beschäftigt werden"', () => {
    // 30 min of break taken, but after 6:30 h of work.
    expect(rules([work('2027-03-01', '07:00', '13:30'), work('2027-03-01', '14:00', '15:00')])).toEqual(['2027-03-01 NO_BREAK_AFTER_6H 30']);
  });
});

describe('§3 ArbZG: working time a day', () => {
  it('"darf acht Stunden nicht überschreiten. Sie kann auf bis zu zehn Stunden nur verlängert werden": over 10 h net is flagged', () => {
    const tenHours = [work('2027-03-01', '07:00', '12:00'), work('2027-03-01', '12:45', '17:45')];
    expect(rules(tenHours)).toEqual([]);
    expect(rules([work('2027-03-01', '07:00', '12:00'), work('2027-03-01', '12:45', '17:46')])).toEqual(['2027-03-01 DAY_OVER_10H 1']);
  });

  it('"wenn innerhalb von sechs Kalendermonaten oder innerhalb von 24 Wochen im Durchschnitt acht Stunden werktäglich nicht überschritten werden"', () => {
    // 9:30 h on every Monday to Saturday: over 8 h on average once enough of the 24 weeks is filled.
    const entries: WorkInterval[] = [];
    for (let day = 0; day < 24 * 7; day += 1) {
      const date = new Date(Date.UTC(2027, 0, 4 + day)).toISOString().slice(0, 10);
      if (new Date(`${date}T00:00:00Z`).getUTCDay() === 0) continue;
      entries.push(work(date, '07:00', '12:00'), work(date, '12:45', '17:15'));
    }
    const found = check(entries).violations.filter((violation) => violation.rule === 'AVERAGE_OVER_8H');
    // The window is 24 weeks before each day: 144 working days x 8 h = 1152 h; 9:30 h a day passes it on the 122nd working day.
    expect(found.length).toBeGreaterThan(0);
    const first = found[0];
    expect(first?.minutes).toBeGreaterThan(0);
    expect(found.at(-1)?.date).toBe('2027-06-19');
    // A steady 8 h never passes it.
    const eight = entries
      .filter((_, index) => index % 2 === 0)
      .map((entry) => ({ ...entry, endedAt: new Date(entry.startedAt.getTime() + 8 * 3_600_000 + 30 * 60_000), breakMinutes: 30 }));
    expect(check(eight).violations.filter((violation) => violation.rule === 'AVERAGE_OVER_8H')).toEqual([]);
  });
});

describe('§5 ArbZG and Art. 3 of 2003/88/EC: 11 h of rest', () => {
  it('"nach Beendigung der täglichen Arbeitszeit eine ununterbrochene Ruhezeit von mindestens elf Stunden"', () => {
    expect(rules([work('2027-03-01', '09:00', '18:00', 30), work('2027-03-02', '05:00', '12:00', 30)])).toEqual([]);
    expect(rules([work('2027-03-01', '09:00', '18:00', 30), work('2027-03-02', '04:59', '12:00', 30)])).toEqual(['2027-03-02 REST_UNDER_11H 1']);
  });

  it('a night shift with its break across midnight is one working day, not a short rest', () => {
    const night = [work('2027-03-01', '22:00', '23:45'), work('2027-03-02', '00:15', '06:00')];
    expect(rules(night)).toEqual([]);
    expect(check(night).days).toEqual([{ date: '2027-03-01', workedMinutes: 450, breakMinutes: 30, requiredBreakMinutes: 30, lackingBreakMinutes: 0 }]);
  });
});

describe('§9 ArbZG: Sundays and public holidays', () => {
  it('"an Sonn- und gesetzlichen Feiertagen von 0 bis 24 Uhr nicht beschäftigt werden"', () => {
    const holidays = new Map([['2027-05-01', 'Tag der Arbeit']]);
    expect(rules([work('2027-05-01', '10:00', '12:00'), work('2027-05-02', '10:00', '11:00')], 'de', holidays)).toEqual([
      '2027-05-01 HOLIDAY_WORK 120',
      '2027-05-02 SUNDAY_WORK 60',
    ]);
    expect(check([work('2027-05-01', '10:00', '12:00')], 'de', holidays).violations[0]?.detail).toBe('2:00 h worked on a public holiday (Tag der Arbeit)');
  });
});

describe('Art. 6 of 2003/88/EC: 48 h a week on average', () => {
  it('"die durchschnittliche Arbeitszeit pro Siebentageszeitraum 48 Stunden ... nicht überschreitet", over 17 weeks', () => {
    // 6 days of 8:30 h (51 h a week) for 17 weeks: 867 h against 816 h allowed.
    const entries: WorkInterval[] = [];
    for (let day = 0; day < 17 * 7; day += 1) {
      const date = new Date(Date.UTC(2027, 0, 4 + day)).toISOString().slice(0, 10);
      if (new Date(`${date}T00:00:00Z`).getUTCDay() === 0) continue;
      entries.push(work(date, '08:00', '17:00', 30));
    }
    const found = check(entries, 'eu').violations;
    expect(new Set(found.map((violation) => violation.rule))).toEqual(new Set(['WEEK_OVER_48H']));
    expect(found.at(-1)).toMatchObject({ date: '2027-05-01', minutes: 102 * 510 - 816 * 60 });
    expect(check(entries, 'de').violations.filter((violation) => violation.rule === 'WEEK_OVER_48H')).toEqual([]);
  });
});

describe('the period', () => {
  it('judges only days from `from` to `to`, with earlier days as context', () => {
    const entries = [work('2027-03-01', '09:00', '18:00', 30), work('2027-03-02', '04:00', '08:00')];
    expect(check(entries, 'de', new Map(), '2027-03-02', '2027-03-02').violations.map((violation) => violation.rule)).toEqual(['REST_UNDER_11H']);
  });
});

describe('the day rules alone (what an entry write warns of)', () => {
  it('leave out the averages and keep every rule the day and the day before decide', () => {
    // 9:30 h on every Monday to Saturday for 24 weeks: the last day breaks §3's average, and its day rules hold.
    const entries: WorkInterval[] = [];
    for (let day = 0; day < 24 * 7; day += 1) {
      const date = new Date(Date.UTC(2027, 0, 4 + day)).toISOString().slice(0, 10);
      if (new Date(`${date}T00:00:00Z`).getUTCDay() === 0) continue;
      entries.push(work(date, '07:00', '12:00'), work(date, '12:45', '17:15'));
    }
    // A Sunday evening, and a Monday of 7 h without a break 9 h after it.
    entries.push(work('2027-06-20', '20:00', '22:00'), work('2027-06-21', '07:00', '14:00'));
    const judge = (dayRulesOnly: boolean) =>
      checkWorkingTime({ entries, timezone: zone, holidays: new Map(), ruleSet: 'de', from: '2027-06-19', to: '2027-06-21', dayRulesOnly }).violations.map(
        (violation) => `${violation.date} ${violation.rule}`,
      );
    expect(judge(false)).toEqual([
      '2027-06-19 AVERAGE_OVER_8H',
      '2027-06-20 SUNDAY_WORK',
      '2027-06-20 AVERAGE_OVER_8H',
      '2027-06-21 BREAK_MISSING',
      '2027-06-21 REST_UNDER_11H',
      '2027-06-21 AVERAGE_OVER_8H',
    ]);
    expect(judge(true)).toEqual(['2027-06-20 SUNDAY_WORK', '2027-06-21 BREAK_MISSING', '2027-06-21 REST_UNDER_11H']);
  });
});
