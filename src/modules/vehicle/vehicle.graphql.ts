import { builder } from '../../graphql/builder.js';
import { graphqlEnum } from '../../graphql/inputs.js';
import { tenantOperation } from '../../graphql/operations.js';
import {
  CreateVehicleArgs,
  ListVehiclesArgs,
  UpdateVehicleArgs,
  VehicleArgs,
  vehicleStatus,
  type VehicleQuery,
} from './vehicle.service.js';

builder.prismaObject('Vehicle', {
  description: 'A vehicle whose mileage entries record.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    name: t.exposeString('name'),
    licensePlate: t.exposeString('licensePlate', { description: 'Unique in the tenant' }),
    make: t.exposeString('make', { nullable: true }),
    model: t.exposeString('model', { nullable: true }),
    fuelType: t.exposeString('fuelType', { nullable: true }),
    odometerKm: t.exposeInt('odometerKm', { nullable: true }),
    status: t.expose('status', { type: graphqlEnum(vehicleStatus) }),
    assignedTenantUserId: t.exposeID('assignedTenantUserId', { nullable: true, description: 'The member who usually drives it' }),
    assignedUser: t.relation('assignedUser', { nullable: true, description: 'The member who usually drives it' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const listVehicles = tenantOperation(ListVehiclesArgs, ['read', 'Vehicle']);
const readVehicle = tenantOperation(VehicleArgs, ['read', 'Vehicle']);
const createVehicle = tenantOperation(CreateVehicleArgs, ['create', 'Vehicle']);
const updateVehicle = tenantOperation(UpdateVehicleArgs, ['update', 'Vehicle']);
const deleteVehicle = tenantOperation(VehicleArgs, ['delete', 'Vehicle']);

builder.queryFields((t) => ({
  vehicles: t.prismaField({
    type: ['Vehicle'],
    description: "The tenant's vehicles, newest first.",
    ...listVehicles.field(t),
    resolve: listVehicles.resolveQuery((input, access, query: VehicleQuery, { services }) => services.vehicles.list(access, input, query)),
  }),
  vehicle: t.prismaField({
    type: 'Vehicle',
    description: 'One vehicle.',
    ...readVehicle.field(t),
    resolve: readVehicle.resolveQuery((input, access, query: VehicleQuery, { services }) => services.vehicles.get(access, input.id, query)),
  }),
}));

builder.mutationFields((t) => ({
  createVehicle: t.prismaField({
    type: 'Vehicle',
    description: 'Creates a vehicle; its licence plate is unique in the tenant (409 otherwise).',
    ...createVehicle.field(t),
    resolve: createVehicle.resolveQuery((input, access, query: VehicleQuery, { services }) =>
      services.vehicles.create(access, input.input, query),
    ),
  }),
  updateVehicle: t.prismaField({
    type: 'Vehicle',
    description: 'Changes a vehicle.',
    ...updateVehicle.field(t),
    resolve: updateVehicle.resolveQuery((input, access, query: VehicleQuery, { services }) =>
      services.vehicles.update(access, input.id, input.input, query),
    ),
  }),
  deleteVehicle: t.prismaField({
    type: 'Vehicle',
    description: 'Deletes a vehicle; its entries keep their distance, without the vehicle. GraphQL returns the deleted vehicle.',
    ...deleteVehicle.field(t),
    resolve: deleteVehicle.resolveQuery((input, access, query: VehicleQuery, { services }) =>
      services.vehicles.remove(access, input.id, query),
    ),
  }),
}));
