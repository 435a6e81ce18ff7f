import { crud } from '../../../rest/route.js';
import { defineModule } from '../../module.js';
import { vehicleConflicts, createVehicleService, type VehicleService } from './vehicle.service.js';
import './vehicle.graphql.js';

/** Vehicles: what mileage entries are driven in. */
export const vehicleModule = defineModule({
  name: 'vehicles',
  createService: createVehicleService,
  tag: { name: 'Vehicles', description: 'Vehicles for mileage entries' },
  conflicts: vehicleConflicts,
  routes: crud(
    'vehicle',
    '/tenants/{tenantId}/vehicles',
    'vehicleId',
    { one: 'vehicle', many: 'vehicles' },
    {
      list: 'Query.vehicles',
      create: 'Mutation.createVehicle',
      get: 'Query.vehicle',
      update: 'Mutation.updateVehicle',
      remove: 'Mutation.deleteVehicle',
    },
  ),
});

declare module '../../services.js' {
  interface Services {
    vehicles: VehicleService;
  }
}
