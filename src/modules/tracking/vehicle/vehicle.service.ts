import { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import { tenantPage } from '../../../db/list.js';
import { shapesResult, type PrismaQuery } from '../../../db/query.js';
import { recordEvent } from '../../../events/outbox.js';
import type { Prisma, Vehicle } from '../../../generated/prisma/client.js';
import { VehicleStatus } from '../../../generated/prisma/enums.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { conflictReasons, notFound, validationFailed } from '../../../lib/errors.js';
import { defineEnum } from '../../../lib/vocabulary.js';
import { activeMember } from '../../platform/user/user.members.js';

/** Why a write to a vehicle is refused with 409. */
export const vehicleConflicts = conflictReasons('Vehicle', {
  PLATE_TAKEN: { code: 'CONFLICT', description: 'Another vehicle of the tenant has this license plate' },
});

export const vehicleStatus = defineEnum('VehicleStatus', VehicleStatus);

const name = z.string().trim().min(1).max(200).describe('Display name, e.g. "Van 2"');
/** Plates are compared as written, in upper case, with single spaces. */
const licensePlate = z
  .string()
  .trim()
  .min(1)
  .max(20)
  .transform((plate) => plate.toUpperCase().replace(/\s+/g, ' '))
  .describe('Licence plate, unique in the tenant');
const text = (what: string, max = 100) => z.string().trim().min(1).max(max).describe(what);
const odometerKm = z.number().int().min(0).max(10_000_000).describe('Odometer reading in km');
const assignee = fields.id('The tenantUserId of the member who usually drives it');

export const CreateVehicleDto = dto('CreateVehicleDto', 'A new vehicle.', {
  name,
  licensePlate,
  make: text('Make').optional(),
  model: text('Model').optional(),
  fuelType: text('Fuel, e.g. diesel, electric', 50).optional(),
  odometerKm: odometerKm.optional(),
  status: vehicleStatus.schema('`retired` vehicles take no new entries').default('active'),
  assignedTenantUserId: assignee.optional(),
});

export const UpdateVehicleDto = dto('UpdateVehicleDto', 'Changes to a vehicle; null clears a field.', {
  name: name.optional(),
  licensePlate: licensePlate.optional(),
  make: text('Make').nullable().optional(),
  model: text('Model').nullable().optional(),
  fuelType: text('Fuel', 50).nullable().optional(),
  odometerKm: odometerKm.nullable().optional(),
  status: vehicleStatus.schema().optional(),
  assignedTenantUserId: assignee.nullable().optional(),
});

const tenantId = fields.id('Tenant id');
const vehicleId = fields.id('Vehicle id');
export const ListVehiclesArgs = args({
  tenantId,
  status: vehicleStatus.schema('Only vehicles with this status').optional(),
  ...pagination,
});
export const VehicleArgs = args({ tenantId, id: vehicleId });
export const CreateVehicleArgs = args({ tenantId, input: CreateVehicleDto });
export const UpdateVehicleArgs = args({ tenantId, id: vehicleId, input: UpdateVehicleDto });

export type VehicleQuery = PrismaQuery<Prisma.VehicleInclude, Prisma.VehicleSelect>;

/** A vehicle of the tenant that may take new mileage, or a 400 naming `path`. */
export async function vehicleForWork(tx: Tx | Db, access: TenantAccess, id: string, path: string): Promise<void> {
  const vehicle = await tx.vehicle.findFirst({ where: { id, ...access.scope('read', 'Vehicle') }, select: { status: true } });
  if (!vehicle) throw validationFailed([{ path, message: 'is not a vehicle of this tenant' }]);
  if (vehicle.status === 'retired') throw validationFailed([{ path, message: 'is a retired vehicle' }]);
}

/** Vehicles for mileage entries: managers and admins manage them, everyone reads them. */
export function createVehicleService({ db, reads }: { db: Db; reads: Reads }) {
  async function findVehicle(tx: Tx | Db, access: TenantAccess, id: string): Promise<Vehicle> {
    const vehicle = await tx.vehicle.findFirst({ where: { id, ...access.scope('read', 'Vehicle') } });
    if (!vehicle) throw notFound('Vehicle', id);
    return vehicle;
  }

  async function assertPlateFree(tx: Tx, access: TenantAccess, plate: string | undefined, except?: string): Promise<void> {
    if (plate === undefined) return;
    const taken = await tx.vehicle.findFirst({
      where: { licensePlate: plate, ...(except ? { NOT: { id: except } } : {}), ...access.tenantWide('Vehicle') },
      select: { id: true },
    });
    if (taken)
      throw vehicleConflicts.refuse('PLATE_TAKEN', `Another vehicle already has the plate ${plate}`, {
        errors: [{ path: 'licensePlate', message: 'is already taken' }],
      });
  }

  const reread = (tx: Tx, id: string, query: VehicleQuery, row: Vehicle) =>
    shapesResult(query) ? tx.vehicle.findUniqueOrThrow({ ...query, where: { id } }) : row;

  return {
    /** The tenant's vehicles, newest first. */
    async list(access: TenantAccess, { limit, offset, status }: z.output<typeof ListVehiclesArgs>, query: VehicleQuery = {}): Promise<Vehicle[]> {
      return reads.run(access, ({ db }) =>
        db.vehicle.findMany({ ...query, ...tenantPage(access.scope('read', 'Vehicle'), { limit, offset }, status ? { status } : {}) }),
      );
    },

    /** One vehicle. */
    async get(access: TenantAccess, id: string, query: VehicleQuery = {}): Promise<Vehicle> {
      const vehicle = await db.vehicle.findFirst({ ...query, where: { id, ...access.scope('read', 'Vehicle') } });
      if (!vehicle) throw notFound('Vehicle', id);
      return vehicle;
    },

    /** Creates a vehicle (its plate unique in the tenant) and records `vehicle.created`. */
    async create(access: TenantAccess, data: z.output<typeof CreateVehicleDto>, query: VehicleQuery = {}): Promise<Vehicle> {
      access.assert('create', 'Vehicle');
      return db.$transaction(async (tx) => {
        await assertPlateFree(tx, access, data.licensePlate);
        if (data.assignedTenantUserId) await activeMember(tx, access, data.assignedTenantUserId, 'assignedTenantUserId');
        const vehicle = await tx.vehicle.create({ data: access.stamp(data) });
        await recordEvent(tx, access, { type: 'vehicle.created', subjectId: vehicle.id, data: vehicle });
        return reread(tx, vehicle.id, query, vehicle);
      });
    },

    /** Changes a vehicle and records `vehicle.updated`. */
    async update(access: TenantAccess, id: string, data: z.output<typeof UpdateVehicleDto>, query: VehicleQuery = {}): Promise<Vehicle> {
      access.assert('update', 'Vehicle');
      return db.$transaction(async (tx) => {
        await findVehicle(tx, access, id);
        await assertPlateFree(tx, access, data.licensePlate, id);
        if (data.assignedTenantUserId) await activeMember(tx, access, data.assignedTenantUserId, 'assignedTenantUserId');
        const vehicle = await tx.vehicle.update({ where: { id }, data });
        await recordEvent(tx, access, { type: 'vehicle.updated', subjectId: id, data: vehicle });
        return reread(tx, id, query, vehicle);
      });
    },

    /** Deletes a vehicle (its entries keep their mileage, without the vehicle) and records `vehicle.deleted`. */
    async remove(access: TenantAccess, id: string, query: VehicleQuery = {}): Promise<Vehicle> {
      access.assert('delete', 'Vehicle');
      return db.$transaction(async (tx) => {
        const existing = await findVehicle(tx, access, id);
        const deleted = await tx.vehicle.delete({ ...query, where: { id } });
        await recordEvent(tx, access, { type: 'vehicle.deleted', subjectId: id, data: existing });
        return deleted;
      });
    },
  };
}

export type VehicleService = ReturnType<typeof createVehicleService>;
