import { billableOf, decimalOf, tagsOf, textOf, time12, usDate } from './import.cells.js';
import { columnLike, personOf, requireColumns, span, type Format } from './import.source.js';

/** Clockify's detailed report (English, MM/DD/YYYY, 12-hour times): a `Task` or `Activity`, `Billable Rate (...)` and `Billable Amount (...)`. */
export const clockify = (timeZone: string): Format => ({
  reader(header) {
    requireColumns('Clockify', header, ['Start Date', 'Start Time', 'End Date', 'End Time']);
    if (!header.includes('Email') && !header.includes('User')) requireColumns('Clockify', header, ['Email']);
    const taskColumn = header.includes('Task') ? 'Task' : 'Activity';
    const rate = columnLike(header, /^Billable Rate \(.*\)$/);
    const amount = columnLike(header, /^Billable Amount \(.*\)$/);
    return (row) => ({
      ...personOf(row('Email'), row('User')),
      client: textOf(row('Client')),
      project: textOf(row('Project')),
      task: textOf(row(taskColumn)),
      description: row('Description')?.trim() ?? '',
      billable: billableOf(row('Billable'), 'Billable'),
      tags: tagsOf(row('Tags')),
      ...span(
        timeZone,
        { date: usDate(row('Start Date') ?? '', 'Start Date'), seconds: time12(row('Start Time') ?? '', 'Start Time') },
        { date: usDate(row('End Date') ?? '', 'End Date'), seconds: time12(row('End Time') ?? '', 'End Time') },
      ),
      billableRate: rate ? decimalOf(row(rate) ?? '') : null,
      billableAmount: amount ? decimalOf(row(amount) ?? '') : null,
      costRate: null,
    });
  },
});
