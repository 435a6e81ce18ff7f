/** What the absences API takes: the inputs of REST and GraphQL alike, the list filters and arguments. */
import { z } from 'zod';
import type { PrismaPageQuery, PrismaQuery } from '../../../db/query.js';
import type { Prisma } from '../../../generated/prisma/client.js';
import { AbsenceStatus, HalfDay } from '../../../generated/prisma/enums.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { defineEnum } from '../../../lib/vocabulary.js';

export const absenceStatus = defineEnum('AbsenceStatus', AbsenceStatus);
export const halfDay = defineEnum('HalfDay', HalfDay);

/** An absence spans at most a year. */
export const maxAbsenceDays = 366;

const note = z.string().trim().max(2000).describe('A note for the approver');

export const CreateAbsenceDto = dto('CreateAbsenceDto', 'A request for time off over whole days, or half of one day.', {
  absenceTypeId: fields.id('The absence type'),
  startDate: fields.date('The first day'),
  endDate: fields.date('The last day (inclusive)'),
  halfDay: halfDay.schema('Half of a one-day absence: the morning (am) or the afternoon (pm)').optional(),
  note: note.optional(),
  tenantUserId: fields.id('Whose absence it is (managers, admins and API keys); default: the caller').optional(),
});

export const UpdateAbsenceDto = dto('UpdateAbsenceDto', 'Changes to a pending absence; null clears a field.', {
  absenceTypeId: fields.id('The absence type').optional(),
  startDate: fields.date('The first day').optional(),
  endDate: fields.date('The last day (inclusive)').optional(),
  halfDay: halfDay.schema('Half of a one-day absence').nullable().optional(),
  note: note.nullable().optional(),
});

export const RejectAbsenceDto = dto('RejectAbsenceDto', 'Why the absence is rejected; its owner sees it.', {
  reason: z.string().trim().min(1).max(2000).describe('Why'),
});

const tenantId = fields.id('Tenant id');
const absenceId = fields.id('Absence id');
const filters = {
  from: fields.date('Absences that end on or after this day').optional(),
  to: fields.date('Absences that start on or before this day').optional(),
  tenantUserId: fields.id("Only this member's absences").optional(),
  status: absenceStatus.schema('Only absences with this status').optional(),
  absenceTypeId: fields.id('Only absences of this type').optional(),
};
export const AbsenceFilterDto = dto('AbsenceFilter', 'Which absences.', filters);
export const ListAbsencesArgs = args({ tenantId, ...filters, ...pagination });
export const AbsencesConnectionArgs = args({ tenantId, filter: AbsenceFilterDto.optional() });
export const BusyBlocksArgs = args({
  tenantId,
  from: fields.date('Busy days that end on or after this day'),
  to: fields.date('Busy days that start on or before this day'),
});
export const AbsenceArgs = args({ tenantId, id: absenceId });
export const CreateAbsenceArgs = args({ tenantId, input: CreateAbsenceDto });
export const UpdateAbsenceArgs = args({ tenantId, id: absenceId, input: UpdateAbsenceDto });
export const RejectAbsenceArgs = args({ tenantId, id: absenceId, input: RejectAbsenceDto });

export type AbsenceQuery = PrismaQuery<Prisma.AbsenceInclude, Prisma.AbsenceSelect>;
export type AbsencePageQuery = PrismaPageQuery<Prisma.AbsenceInclude, Prisma.AbsenceWhereUniqueInput>;
export type AbsenceFilter = z.output<typeof AbsenceFilterDto>;

/** Absences are listed by their first day, latest first, on the (tenantId, tenantUserId|status, startDate, id) indexes. */
export const absenceOrder: Prisma.AbsenceOrderByWithRelationInput[] = [{ startDate: 'desc' }, { id: 'desc' }];
