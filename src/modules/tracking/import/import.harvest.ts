import { zonedInstant } from '../../../lib/time.js';
import { billableOf, decimalOf, isoDate, RowError, textOf } from './import.cells.js';
import { personOf, requireColumns, type Format } from './import.source.js';

/** Harvest has a date and hours, no times: an entry starts at 00:00 local on its date. */
export const harvest = (timeZone: string): Format => ({
  reader(header) {
    requireColumns('Harvest', header, ['Date', 'Hours', 'First Name', 'Last Name']);
    return (row) => {
      const date = isoDate(row('Date') ?? '', 'Date');
      const hours = decimalOf(row('Hours') ?? '');
      if (hours === null || Number(hours) < 0) throw new RowError(`Hours "${row('Hours') ?? ''}" is not a number of hours`);
      const startedAt = zonedInstant(date, 0, timeZone);
      const name = [textOf(row('First Name')), textOf(row('Last Name'))].filter((part) => part !== null).join(' ');
      return {
        ...personOf(undefined, name),
        client: textOf(row('Client')),
        project: textOf(row('Project')),
        task: textOf(row('Task')),
        description: row('Notes')?.trim() ?? '',
        billable: billableOf(row('Billable?'), 'Billable?'),
        tags: [],
        startedAt,
        endedAt: new Date(startedAt.getTime() + Math.round(Number(hours) * 60) * 60_000),
        billableRate: decimalOf(row('Billable Rate') ?? ''),
        billableAmount: decimalOf(row('Billable Amount') ?? ''),
        costRate: decimalOf(row('Cost Rate') ?? ''),
      };
    };
  },
});
