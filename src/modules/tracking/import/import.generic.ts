/** A CSV file of any layout, read through the `mapping` its importer gives: field -> the file's column header. */
import { zonedInstant } from '../../../lib/time.js';
import { billableOf, breakMinutesOf, decimalOf, durationSeconds, isoDate, RowError, tagsOf, textOf, time24 } from './import.cells.js';
import { ImportFileError, personOf, span, type Format, type Row } from './import.source.js';

/** The fields a generic file's `mapping` may name: field -> the file's column header. */
export const genericMappingFields = [
  'date',
  'startTime',
  'endDate',
  'endTime',
  'duration',
  'email',
  'userName',
  'client',
  'project',
  'task',
  'description',
  'billable',
  'tags',
  'breakMinutes',
  'billableRate',
  'billableAmount',
  'costRate',
] as const;
export type GenericMappingField = (typeof genericMappingFields)[number];
export type GenericMapping = Partial<Record<GenericMappingField, string>>;

/** Checks a generic file's mapping: known fields, column names, and enough to make an entry of a row. */
export function checkMapping(mapping: unknown): GenericMapping {
  if (typeof mapping !== 'object' || mapping === null || Array.isArray(mapping)) {
    throw new ImportFileError(
      'mapping',
      'must be a JSON object of field -> column header, e.g. {"date":"Day","startTime":"Start","endTime":"End","email":"Mail"}',
    );
  }
  const checked: GenericMapping = {};
  for (const [field, column] of Object.entries(mapping)) {
    if (!(genericMappingFields as readonly string[]).includes(field)) {
      throw new ImportFileError('mapping', `has an unknown field "${field}"; the fields are ${genericMappingFields.join(', ')}`);
    }
    if (typeof column !== 'string' || column.trim() === '' || column.length > 200) {
      throw new ImportFileError('mapping', `maps "${field}" to ${JSON.stringify(column)}: a column header is a non-empty text`);
    }
    checked[field as GenericMappingField] = column;
  }
  const missing: string[] = [];
  if (!checked.date) missing.push('date');
  if (!checked.duration && !(checked.startTime && checked.endTime)) missing.push('startTime and endTime (or duration)');
  if (!checked.email && !checked.userName) missing.push('email or userName');
  if (missing.length > 0) throw new ImportFileError('mapping', `needs ${missing.join(', ')}`);
  return checked;
}

/**
 * A mapped file: dates `YYYY-MM-DD`, times 24-hour. With start and end, an
 * end at or before the start without an end date is on the next day; with
 * a duration and no end, the entry lasts that long from its start (00:00
 * without a start time).
 */
export const generic = (timeZone: string, mapping: GenericMapping): Format => ({
  reader(header) {
    const missing = Object.entries(mapping).filter(([, column]) => !header.includes(column));
    if (missing.length > 0) {
      throw new ImportFileError(
        'mapping',
        `names ${missing.map(([field, column]) => `"${column}" (${field})`).join(', ')}, which the file does not have; its columns are ${header.join(', ').slice(0, 300)}`,
      );
    }
    const value = (row: Row, field: GenericMappingField): string | undefined => (mapping[field] ? row(mapping[field]) : undefined);
    return (row) => {
      const date = isoDate(value(row, 'date') ?? '', mapping.date as string);
      const startText = textOf(value(row, 'startTime'));
      const start = startText === null ? 0 : time24(startText, mapping.startTime as string);
      const endText = textOf(value(row, 'endTime'));
      const durationText = textOf(value(row, 'duration'));
      let times: { startedAt: Date; endedAt: Date };
      if (endText !== null) {
        const end = time24(endText, mapping.endTime as string);
        const endDate = textOf(value(row, 'endDate'));
        times = endDate
          ? span(timeZone, { date, seconds: start }, { date: isoDate(endDate, mapping.endDate as string), seconds: end })
          : span(timeZone, { date, seconds: start }, { seconds: end, nextDayWhenNotAfter: true });
      } else if (durationText !== null) {
        const startedAt = zonedInstant(date, start, timeZone);
        times = { startedAt, endedAt: new Date(startedAt.getTime() + durationSeconds(durationText, mapping.duration as string) * 1000) };
      } else {
        throw new RowError(
          `has neither ${mapping.endTime ? `an end time (${mapping.endTime})` : ''}${mapping.endTime && mapping.duration ? ' nor ' : ''}${mapping.duration ? `a duration (${mapping.duration})` : ''}`,
        );
      }
      return {
        ...personOf(value(row, 'email'), value(row, 'userName')),
        client: textOf(value(row, 'client')),
        project: textOf(value(row, 'project')),
        task: textOf(value(row, 'task')),
        description: value(row, 'description')?.trim() ?? '',
        billable: billableOf(value(row, 'billable'), mapping.billable ?? 'billable'),
        tags: tagsOf(value(row, 'tags')),
        ...times,
        billableRate: decimalOf(value(row, 'billableRate') ?? ''),
        billableAmount: decimalOf(value(row, 'billableAmount') ?? ''),
        costRate: decimalOf(value(row, 'costRate') ?? ''),
        breakMinutes: breakMinutesOf(value(row, 'breakMinutes'), mapping.breakMinutes ?? 'breakMinutes'),
      };
    };
  },
});
