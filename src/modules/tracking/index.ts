/** Tracking: the time itself, and what it is for. Uses the platform. */
import { defineDomain } from '../domain.js';
import { clientModule } from './client/index.js';
import { entryModule } from './entry/index.js';
import { importModule } from './import/index.js';
import { projectModule } from './project/index.js';
import { projectMemberModule } from './project-member/index.js';
import { taskModule } from './task/index.js';
import { taskListModule } from './task-list/index.js';
import { vehicleModule } from './vehicle/index.js';

export const trackingDomain = defineDomain({
  name: 'tracking',
  description:
    'Tracking time: clients, projects and who works on them, task lists and tasks, vehicles, the time entries, and imports of entries from other tools. ' +
    'party/ holds what a buyer and a seller are written with (addresses, tax ids, e-invoice addresses), which clients and billing share.',
  uses: ['platform'],
  modules: [clientModule, projectModule, projectMemberModule, taskListModule, taskModule, vehicleModule, entryModule, importModule],
});
