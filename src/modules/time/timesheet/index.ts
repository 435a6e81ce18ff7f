import { contentDisposition } from '../../../lib/content-disposition.js';
import { nativeRoute } from '../../../rest/route.js';
import { defineModule } from '../../module.js';
import { type DocumentLocale, documentLocale } from '../../../lib/i18n.js';
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

/** The columns in `locale`'s language: headers from its catalogue, dates and weekdays on the page as ICU writes them. */
const columnsIn = ({ t, date, weekday }: DocumentLocale): readonly Column<SheetRow>[] => [
  {
    header: t('timesheet.date'),
    kind: 'text',
    value: (row) => row.date ?? t('timesheet.total'),
    printed: (row) => (row.date ? date(row.date) : t('timesheet.total')),
    pdfWidth: 56,
  },
  { header: t('timesheet.day'), kind: 'text', value: (row) => row.weekday ?? '', printed: (row) => (row.date ? weekday(row.date) : ''), pdfWidth: 28 },
  { header: t('timesheet.start'), kind: 'text', value: (row) => row.start ?? '', pdfWidth: 34 },
  { header: t('timesheet.end'), kind: 'text', value: (row) => row.end ?? '', pdfWidth: 34 },
  minutes(t('timesheet.break'), (row) => row.breakMinutes, 44),
  minutes(t('timesheet.worked'), (row) => row.workedMinutes, 48),
  minutes(t('timesheet.expected'), (row) => row.expectedMinutes, 50),
  minutes(t('timesheet.credited'), (row) => row.creditedMinutes, 48),
  minutes(t('timesheet.balanceColumn'), (row) => row.balanceMinutes, 48),
  { header: t('timesheet.absence'), kind: 'text', value: (row) => row.absence ?? '', pdfWidth: 100 },
  { header: t('timesheet.holiday'), kind: 'text', value: (row) => row.holiday ?? '', pdfWidth: 90 },
  // The rules of working-time law the day breaks (the totals row has none).
  { header: t('timesheet.violations'), kind: 'text', value: (row) => row.violations?.join(', ') ?? '', pdfWidth: 150 },
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
        const { format, language, ...input } = parameters;
        const sheet: Timesheet = await context.services.timesheets.timesheet(access, input);
        if (format === 'json') return respond('Timesheet', sheet, 200);
        const name = `timesheet-${sheet.memberName.replace(/[^\p{L}\p{N}._-]+/gu, '-')}-${sheet.month}.${format}`;
        const locale = documentLocale(language);
        const { t } = locale;
        const { totals } = sheet;
        return {
          status: 200,
          headers: { 'content-type': mediaTypes[format], 'content-disposition': contentDisposition(name), 'x-content-type-options': 'nosniff' },
          body: fileOf<SheetRow>(format, {
            title: t('timesheet.title', { month: sheet.month, member: sheet.memberName }),
            details: [
              t('timesheet.tenant', { tenant: access.tenant.name, timezone: sheet.timezone }),
              t('timesheet.balance', {
                balance: hoursAndMinutes(totals.balanceMinutes),
                worked: hoursAndMinutes(totals.workedMinutes),
                credited: hoursAndMinutes(totals.creditedMinutes),
                expected: hoursAndMinutes(totals.expectedMinutes),
              }),
            ],
            columns: columnsIn(locale),
            batches: [[...sheet.days, totals]],
            emphasised: (row) => row.date === undefined,
            signatures: [t('timesheet.member', { name: sheet.memberName }), t('timesheet.approver')],
            pageLabel: (page) => t('timesheet.page', { page }),
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
