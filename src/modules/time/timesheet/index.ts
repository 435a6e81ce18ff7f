import { contentDisposition } from '../../../lib/content-disposition.js';
import { nativeRoute } from '../../../rest/route.js';
import { defineModule } from '../../module.js';
import { type Column, fileOf, mediaTypes } from '../../../lib/table-file.js';
import { createTimesheetService, TimesheetParameters, type Timesheet, type TimesheetDay, type TimesheetService } from './timesheet.service.js';
import './timesheet.graphql.js';

/** A day's row, or the month's totals (date null). */
type SheetRow = Partial<TimesheetDay> &
  Pick<TimesheetDay, 'breakMinutes' | 'workedMinutes' | 'expectedMinutes' | 'creditedMinutes' | 'holidayMinutes' | 'balanceMinutes'>;

/** Minutes as `h:mm` text (`-1:30` for -90). */
const hoursAndMinutes = (minutes: number): string =>
  `${minutes < 0 ? '-' : ''}${Math.floor(Math.abs(minutes) / 60)}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;

/** Minutes in CSV and XLSX (numbers to add up); h:mm on the page. */
const minutes = (header: string, value: (row: SheetRow) => number, pdfWidth: number): Column<SheetRow> => ({
  header,
  kind: 'count',
  value,
  pdfWidth,
  printed: (row) => hoursAndMinutes(value(row)),
});

const columns: readonly Column<SheetRow>[] = [
  { header: 'Date', kind: 'text', value: (row) => row.date ?? 'Total', pdfWidth: 56 },
  { header: 'Day', kind: 'text', value: (row) => row.weekday ?? '', pdfWidth: 28 },
  { header: 'Start', kind: 'text', value: (row) => row.start ?? '', pdfWidth: 34 },
  { header: 'End', kind: 'text', value: (row) => row.end ?? '', pdfWidth: 34 },
  minutes('Break', (row) => row.breakMinutes, 44),
  minutes('Worked', (row) => row.workedMinutes, 48),
  minutes('Expected', (row) => row.expectedMinutes, 50),
  minutes('Credited', (row) => row.creditedMinutes, 48),
  minutes('Balance', (row) => row.balanceMinutes, 48),
  { header: 'Absence', kind: 'text', value: (row) => row.absence ?? '', pdfWidth: 100 },
  { header: 'Holiday', kind: 'text', value: (row) => row.holiday ?? '', pdfWidth: 90 },
  // The rules of working-time law the day breaks (the totals row has none).
  { header: 'Violations', kind: 'text', value: (row) => row.violations?.join(', ') ?? '', pdfWidth: 150 },
];

/** Monthly timesheets to sign, as JSON or as a CSV, XLSX or PDF file. */
export const timesheetModule = defineModule({
  name: 'timesheets',
  createService: createTimesheetService,
  tag: { name: 'Timesheets', description: 'A member’s month, day by day, to sign' },
  routes: [
    nativeRoute({
      controller: 'timesheet',
      action: 'findOne',
      method: 'GET',
      path: '/tenants/{tenantId}/users/{tenantUserId}/timesheets/{month}',
      summary: 'A member’s month to sign: JSON, CSV, XLSX or a PDF with signature lines (members: their own)',
      description:
        'Each day of the month with the first start and last end of its entries, the minutes in between not worked (breaks), ' +
        'worked, expected and credited minutes, absences and holidays, and the month’s totals and balance; times in the tenant’s zone.',
      access: ['read', 'Timesheet'],
      parameters: TimesheetParameters,
      responses: {
        '200': {
          description: 'The timesheet (format=json), or the file (format=csv, xlsx or pdf)',
          graphqlType: 'Timesheet',
          contentType: Object.values(mediaTypes),
          headers: { 'content-disposition': 'attachment, with a file name of the member and the month (with format=csv, xlsx or pdf)' },
        },
      },
      async handler({ access, parameters, context, respond }) {
        const { format, ...input } = parameters;
        const sheet: Timesheet = await context.services.timesheets.timesheet(access, input);
        if (format === 'json') return respond('Timesheet', sheet, 200);
        const name = `timesheet-${sheet.memberName.replace(/[^\p{L}\p{N}._-]+/gu, '-')}-${sheet.month}.${format}`;
        return {
          status: 200,
          headers: { 'content-type': mediaTypes[format], 'content-disposition': contentDisposition(name), 'x-content-type-options': 'nosniff' },
          body: fileOf<SheetRow>(format, {
            title: `Timesheet ${sheet.month}: ${sheet.memberName}`,
            details: [
              `Tenant: ${access.tenant.name}. Times in ${sheet.timezone}; durations in minutes in CSV and XLSX, in hours:minutes in the PDF`,
              `Balance of the month: ${hoursAndMinutes(sheet.totals.balanceMinutes)} (worked ${hoursAndMinutes(sheet.totals.workedMinutes)} + credited ${hoursAndMinutes(sheet.totals.creditedMinutes)} - expected ${hoursAndMinutes(sheet.totals.expectedMinutes)})`,
            ],
            columns,
            batches: [[...sheet.days, sheet.totals]],
            emphasised: (row) => row.date === undefined,
            signatures: [`Member: ${sheet.memberName}`, 'Approver'],
          }),
        };
      },
    }),
  ],
});

declare module '../../services.js' {
  interface Services {
    timesheets: TimesheetService;
  }
}
