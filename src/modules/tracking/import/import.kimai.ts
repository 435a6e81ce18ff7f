import { zonedInstant } from '../../../lib/time.js';
import { billableOf, decimalOf, durationSeconds, isoDate, tagsOf, textOf, time24, withoutFormulaGuard } from './import.cells.js';
import { personOf, requireColumns, span, type Format } from './import.source.js';

/** Kimai: `Date`, `From`, `To` and no end date (`To` at or before `From` is the next day; `Duration` tells 0 from 24 hours). */
export const kimai = (timeZone: string): Format => ({
  reader(header) {
    requireColumns('Kimai', header, ['Date', 'From', 'To']);
    if (!header.includes('E-mail') && !header.includes('Name') && !header.includes('User')) requireColumns('Kimai', header, ['E-mail']);
    return (row) => {
      const date = isoDate(row('Date') ?? '', 'Date');
      const from = time24(row('From') ?? '', 'From');
      const to = time24(row('To') ?? '', 'To');
      const duration = textOf(row('Duration'));
      const zero = to === from && duration !== null && durationSeconds(duration, 'Duration') === 0;
      const times = zero
        ? { startedAt: zonedInstant(date, from, timeZone), endedAt: zonedInstant(date, from, timeZone) }
        : span(timeZone, { date, seconds: from }, { seconds: to, nextDayWhenNotAfter: true });
      return {
        ...personOf(row('E-mail'), row('Name') ?? row('User')),
        client: textOf(row('Customer')),
        project: textOf(row('Project')),
        task: textOf(row('Activity')),
        description: withoutFormulaGuard(row('Description') ?? '').trim(),
        billable: billableOf(row('Billable'), 'Billable'),
        tags: tagsOf(row('Tags')),
        ...times,
        billableRate: decimalOf(row('Hourly price') ?? ''),
        billableAmount: decimalOf(row('Price') ?? ''),
        costRate: null,
      };
    };
  },
});
