import { billableOf, decimalOf, isoDate, tagsOf, textOf, time24 } from './import.cells.js';
import { columnLike, personOf, requireColumns, span, type Format } from './import.source.js';

/** Toggl Track's detailed report: start and end dates and times, an email or a user, an `Amount (...)` without a rate. */
export const toggl = (timeZone: string): Format => ({
  reader(header) {
    requireColumns('Toggl', header, ['Start date', 'Start time', 'End date', 'End time']);
    if (!header.includes('Email') && !header.includes('User')) requireColumns('Toggl', header, ['Email']);
    const amount = columnLike(header, /^Amount \(.*\)$/);
    return (row) => ({
      ...personOf(row('Email'), row('User')),
      client: textOf(row('Client')),
      project: textOf(row('Project')),
      task: textOf(row('Task')),
      description: row('Description')?.trim() ?? '',
      billable: billableOf(row('Billable'), 'Billable'),
      tags: tagsOf(row('Tags')),
      ...span(
        timeZone,
        { date: isoDate(row('Start date') ?? '', 'Start date'), seconds: time24(row('Start time') ?? '', 'Start time') },
        { date: isoDate(row('End date') ?? '', 'End date'), seconds: time24(row('End time') ?? '', 'End time') },
      ),
      billableRate: null,
      billableAmount: amount ? decimalOf(row(amount) ?? '') : null,
      costRate: null,
    });
  },
});
