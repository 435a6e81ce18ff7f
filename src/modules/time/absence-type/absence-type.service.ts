import { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import { shapesResult, type PrismaPageQuery, type PrismaQuery } from '../../../db/query.js';
import { recordEvent } from '../../../events/outbox.js';
import type { AbsenceType, Prisma } from '../../../generated/prisma/client.js';
import { AbsenceKind } from '../../../generated/prisma/enums.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { conflictReasons, notFound } from '../../../lib/errors.js';
import { defineEnum } from '../../../lib/vocabulary.js';

export const absenceKind = defineEnum('AbsenceKind', AbsenceKind);

/** Why a write to an absence type is refused with 409. */
export const absenceTypeConflicts = conflictReasons('AbsenceType', {
  ABSENCE_TYPE_NAME_TAKEN: { code: 'CONFLICT', description: 'Another absence type of the tenant has this name' },
  ABSENCE_TYPE_IN_USE: { code: 'CONFLICT', description: 'Absences of this type exist; archive the type instead' },
});

const name = z.string().trim().min(1).max(100).describe('What it is called');
const flags = {
  countsAsWork: z.boolean().describe('Credits the day’s expected minutes (vacation, sickness)'),
  deductsVacation: z.boolean().describe('Its days are taken from the vacation allowance'),
  needsApproval: z.boolean().describe('Requests wait for a manager or admin; without, they are approved at once'),
};

export const CreateAbsenceTypeDto = dto('CreateAbsenceTypeDto', 'A kind of absence.', {
  name,
  kind: absenceKind.schema('vacation, sickness, overtime (compensation, paid from the balance), unpaid (the day is not expected) or other'),
  ...flags,
});
export const UpdateAbsenceTypeDto = dto('UpdateAbsenceTypeDto', 'Changes to an absence type (absences already taken count as it says then and now).', {
  name: name.optional(),
  countsAsWork: flags.countsAsWork.optional(),
  deductsVacation: flags.deductsVacation.optional(),
  needsApproval: flags.needsApproval.optional(),
  archived: z.boolean().optional().describe('No new absences of an archived type'),
});

const tenantId = fields.id('Tenant id');
const absenceTypeId = fields.id('Absence type id');
export const ListAbsenceTypesArgs = args({ tenantId, ...pagination });
export const AbsenceTypeArgs = args({ tenantId, id: absenceTypeId });
export const CreateAbsenceTypeArgs = args({ tenantId, input: CreateAbsenceTypeDto });
export const UpdateAbsenceTypeArgs = args({ tenantId, id: absenceTypeId, input: UpdateAbsenceTypeDto });

export type AbsenceTypeQuery = PrismaQuery<Prisma.AbsenceTypeInclude, Prisma.AbsenceTypeSelect>;
export type AbsenceTypePageQuery = PrismaPageQuery<Prisma.AbsenceTypeInclude, Prisma.AbsenceTypeWhereUniqueInput>;

const order: Prisma.AbsenceTypeOrderByWithRelationInput[] = [{ createdAt: 'asc' }, { id: 'asc' }];

/** An absence type of the access's tenant, for an absence to be of (`path` names the field in the refusal). */
export async function absenceTypeOf(tx: Tx | Db, access: TenantAccess, id: string): Promise<AbsenceType | null> {
  return tx.absenceType.findFirst({ where: { id, ...access.tenantWide('AbsenceType') } });
}

/**
 * Absence types: every tenant starts with Vacation, Sickness, Overtime
 * compensation and Unpaid (a database trigger adds them to each new tenant);
 * admins add, change, archive and delete unused ones; everyone reads them.
 */
export function createAbsenceTypeService({ db, reads }: { db: Db; reads: Reads }) {
  async function assertNameFree(tx: Tx, access: TenantAccess, value: string, except?: string) {
    const taken = await tx.absenceType.findFirst({
      where: { name: { equals: value, mode: 'insensitive' }, ...(except ? { NOT: { id: except } } : {}), ...access.tenantWide('AbsenceType') },
      select: { id: true },
    });
    if (taken) {
      throw absenceTypeConflicts.refuse('ABSENCE_TYPE_NAME_TAKEN', `Absence type ${taken.id} is called "${value}" already`, {
        errors: [{ path: 'name', message: 'is taken' }],
      });
    }
  }

  return {
    /** The tenant's absence types, oldest first (the four defaults lead). */
    async list(access: TenantAccess, { limit, offset }: z.output<typeof ListAbsenceTypesArgs>, query: AbsenceTypeQuery = {}): Promise<AbsenceType[]> {
      return reads.run(access, ({ db }) =>
        db.absenceType.findMany({ ...query, where: access.scope('read', 'AbsenceType'), orderBy: order, take: limit, skip: offset }),
      );
    },

    /** One absence type. */
    async get(access: TenantAccess, id: string, query: AbsenceTypeQuery = {}): Promise<AbsenceType> {
      const type = await db.absenceType.findFirst({ ...query, where: { id, ...access.scope('read', 'AbsenceType') } });
      if (!type) throw notFound('AbsenceType', id);
      return type;
    },

    /** Adds an absence type; records `absence_type.created`. */
    async create(access: TenantAccess, input: z.output<typeof CreateAbsenceTypeDto>, query: AbsenceTypeQuery = {}): Promise<AbsenceType> {
      access.assert('create', 'AbsenceType');
      return db.$transaction(async (tx) => {
        await assertNameFree(tx, access, input.name);
        const type = await tx.absenceType.create({ data: access.stamp(input) });
        await recordEvent(tx, access, { type: 'absence_type.created', subjectId: type.id, data: type });
        return shapesResult(query) ? tx.absenceType.findUniqueOrThrow({ ...query, where: { id: type.id } }) : type;
      });
    },

    /** Changes an absence type; records `absence_type.updated`. */
    async update(access: TenantAccess, id: string, input: z.output<typeof UpdateAbsenceTypeDto>, query: AbsenceTypeQuery = {}): Promise<AbsenceType> {
      return db.$transaction(async (tx) => {
        const existing = await tx.absenceType.findFirst({ where: { id, ...access.scope('update', 'AbsenceType') } });
        if (!existing) throw notFound('AbsenceType', id);
        if (input.name !== undefined) await assertNameFree(tx, access, input.name, id);
        const type = await tx.absenceType.update({ where: { id }, data: input });
        await recordEvent(tx, access, { type: 'absence_type.updated', subjectId: id, data: type });
        return shapesResult(query) ? tx.absenceType.findUniqueOrThrow({ ...query, where: { id } }) : type;
      });
    },

    /** Deletes an absence type no absence is of; records `absence_type.deleted`. */
    async remove(access: TenantAccess, id: string, query: AbsenceTypeQuery = {}): Promise<AbsenceType> {
      return db.$transaction(async (tx) => {
        const existing = await tx.absenceType.findFirst({ where: { id, ...access.scope('delete', 'AbsenceType') } });
        if (!existing) throw notFound('AbsenceType', id);
        if (await tx.absence.findFirst({ where: { absenceTypeId: id }, select: { id: true } })) {
          throw absenceTypeConflicts.refuse('ABSENCE_TYPE_IN_USE', 'Absences of this type exist; archive it instead (archived: true)');
        }
        const deleted = await tx.absenceType.delete({ ...query, where: { id } });
        await recordEvent(tx, access, { type: 'absence_type.deleted', subjectId: id, data: existing });
        return deleted;
      });
    },
  };
}

export type AbsenceTypeService = ReturnType<typeof createAbsenceTypeService>;
