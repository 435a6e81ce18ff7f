/**
 * What the entries API takes: the inputs of REST and GraphQL alike (the
 * text limits are entry.values.ts's), the list filters and arguments, and
 * the order entries are listed in.
 */
import { z } from 'zod';
import type { PrismaPageQuery, PrismaQuery } from '../../../db/query.js';
import type { Prisma } from '../../../generated/prisma/client.js';
import { EntryStatus } from '../../../generated/prisma/enums.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { defineEnum } from '../../../lib/vocabulary.js';
import { entryDescription, entryLimits, entryTags } from './entry.values.js';

export const entryStatus = defineEnum('EntryStatus', EntryStatus);

const description = z.string().trim().max(entryLimits.description).transform(entryDescription).describe('What was done');
const tags = z
  .array(z.string().trim().min(1).max(entryLimits.tag))
  .max(entryLimits.tags)
  .transform(entryTags)
  .describe('Labels, up to 20 (stored in lower case)');
const breakMinutes = z.number().int().min(0).max(1440).describe('Minutes of break inside the span');
const distanceKm = fields.decimal('Kilometres driven, for mileage', { min: 0, max: 100_000 });
const reference = (what: string) => fields.id(what);

export const CreateEntryDto = dto('CreateEntryDto', 'A time entry: with `endedAt` a finished one, without it a running timer (one per member).', {
  tenantUserId: reference('Whose time it is (admins and API keys); default: the caller').optional(),
  projectId: reference('The project').optional(),
  taskId: reference('The task').optional(),
  vehicleId: reference('The vehicle driven').optional(),
  distanceKm: distanceKm.optional(),
  startedAt: fields.dateTime('When the work started'),
  endedAt: fields.dateTime('When it ended; leave out to start a timer').optional(),
  breakMinutes: breakMinutes.default(0),
  description: description.optional(),
  billable: z.boolean().optional().describe("Default: the project's setting, else true"),
  tags: tags.default([]),
});

export const UpdateEntryDto = dto('UpdateEntryDto', 'Changes to an entry; null clears a field. Editing a rejected entry makes it a draft.', {
  projectId: reference('The project').nullable().optional(),
  taskId: reference('The task').nullable().optional(),
  vehicleId: reference('The vehicle driven').nullable().optional(),
  distanceKm: distanceKm.nullable().optional(),
  startedAt: fields.dateTime('When the work started').optional(),
  endedAt: fields.dateTime('When it ended (stopping a timer)').optional(),
  breakMinutes: breakMinutes.optional(),
  description: description.nullable().optional(),
  billable: z.boolean().optional(),
  tags: tags.optional(),
});

export const RejectEntryDto = dto('RejectEntryDto', 'Why the entry is rejected; its owner sees it.', {
  reason: z.string().trim().min(1).max(2000).describe('What to fix'),
});

const period = (what: string) => fields.dateOrDateTime(`${what}: a date (a whole day in the tenant's time zone) or a date-time with offset`);
const filters = {
  from: period('Entries that started at or after').optional(),
  to: period('Entries that started before the end of').optional(),
  tenantUserId: reference("Only this member's entries").optional(),
  projectId: reference('Only entries of this project').optional(),
  taskId: reference('Only entries of this task').optional(),
  status: entryStatus.schema('Only entries with this status').optional(),
  billable: z.boolean().optional().describe('Only billable (true) or only non-billable (false) entries'),
};
const tenantId = fields.id('Tenant id');
const entryId = fields.id('Entry id');
export const EntryFilterDto = dto('EntryFilter', 'Which entries.', filters);
export const ListEntriesArgs = args({ tenantId, ...filters, ...pagination });
export const EntriesConnectionArgs = args({ tenantId, filter: EntryFilterDto.optional() });
export const EntryArgs = args({ tenantId, id: entryId });
export const CreateEntryArgs = args({ tenantId, input: CreateEntryDto });
export const UpdateEntryArgs = args({ tenantId, id: entryId, input: UpdateEntryDto });
export const RejectEntryArgs = args({ tenantId, id: entryId, input: RejectEntryDto });

export type EntryQuery = PrismaQuery<Prisma.EntryInclude, Prisma.EntrySelect>;
export type EntryPageQuery = PrismaPageQuery<Prisma.EntryInclude, Prisma.EntryWhereUniqueInput>;
export type EntryFilter = z.output<typeof EntryFilterDto>;

/** Entries are listed by when they started, newest first, on the tenant's (tenantId, startedAt, id) index. */
export const entryOrder: Prisma.EntryOrderByWithRelationInput[] = [{ startedAt: 'desc' }, { id: 'desc' }];
