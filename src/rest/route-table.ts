/**
 * The REST contract (CONTRACT.md section 5): one row per route. This table
 * drives the REST router (through sofa) and the OpenAPI document; arguments,
 * bodies and permissions come from the GraphQL field the row names.
 *
 * operationId = `<controller>Controller<Action>`, tag = the controller's tag.
 * Path parameters map to the field argument of the same name, except the last
 * one, which maps to `id` when the field has no argument of its own name.
 */

export const controllerTags = {
  auth: 'Auth',
  tenant: 'Tenants',
  user: 'Users',
  entry: 'Entries',
  invoice: 'Invoices',
  project: 'Projects',
  taskList: 'TaskLists',
  vehicle: 'Vehicles',
  notification: 'Notifications',
  sync: 'Syncs',
  search: 'Search',
  apiKey: 'ApiKeys',
  webhook: 'Webhooks',
  note: 'Notes',
  admin: 'Admin',
} as const;

export type Controller = keyof typeof controllerTags;
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
export type SuccessStatus = 200 | 201 | 202 | 204;

export interface RouteSpec {
  controller: Controller;
  action: string;
  method: HttpMethod;
  /** OpenAPI-style template: `/tenants/{tenantId}/notes/{noteId}`. */
  path: string;
  /** The GraphQL field that implements the route. */
  field: `Query.${string}` | `Mutation.${string}`;
  status: SuccessStatus;
  summary: string;
}

const notes: RouteSpec[] = [
  {
    controller: 'note',
    action: 'findAll',
    method: 'GET',
    path: '/tenants/{tenantId}/notes',
    field: 'Query.notes',
    status: 200,
    summary: 'List notes, newest first',
  },
  {
    controller: 'note',
    action: 'create',
    method: 'POST',
    path: '/tenants/{tenantId}/notes',
    field: 'Mutation.createNote',
    status: 201,
    summary: 'Create a note',
  },
  {
    controller: 'note',
    action: 'findOne',
    method: 'GET',
    path: '/tenants/{tenantId}/notes/{noteId}',
    field: 'Query.note',
    status: 200,
    summary: 'Get a note',
  },
  {
    controller: 'note',
    action: 'update',
    method: 'PATCH',
    path: '/tenants/{tenantId}/notes/{noteId}',
    field: 'Mutation.updateNote',
    status: 200,
    summary: 'Change a note (members and managers: their own only)',
  },
  {
    controller: 'note',
    action: 'remove',
    method: 'DELETE',
    path: '/tenants/{tenantId}/notes/{noteId}',
    field: 'Mutation.deleteNote',
    status: 204,
    summary: 'Delete a note (members and managers: their own only)',
  },
];

export const routeTable: readonly RouteSpec[] = [...notes];
