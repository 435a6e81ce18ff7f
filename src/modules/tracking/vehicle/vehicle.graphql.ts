import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { resourceFields } from '../../../graphql/resource-fields.js';
import { CreateVehicleArgs, ListVehiclesArgs, UpdateVehicleArgs, VehicleArgs, vehicleStatus } from './vehicle.service.js';

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

resourceFields('Vehicle', {
  subject: 'Vehicle',
  service: (services) => services.vehicles,
  queries: {
    vehicles: { list: ListVehiclesArgs, description: "The tenant's vehicles, newest first." },
    vehicle: { get: VehicleArgs, description: 'One vehicle.' },
  },
  mutations: {
    createVehicle: { create: CreateVehicleArgs, description: 'Creates a vehicle; its licence plate is unique in the tenant (409 otherwise).' },
    updateVehicle: { update: UpdateVehicleArgs, description: 'Changes a vehicle.' },
    deleteVehicle: {
      remove: VehicleArgs,
      description: 'Deletes a vehicle; its entries keep their distance, without the vehicle. GraphQL returns the deleted vehicle.',
    },
  },
});
