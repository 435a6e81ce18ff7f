/**
 * Projects, task lists and tasks, vehicles: their rules over REST and
 * GraphQL, and relations that load without N+1 queries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Problem, Project, Task, TaskList, Vehicle } from './generated/openapi/types.gen.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seeder, type SeededMember, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let provider: IdentityProvider;
let server: TestServer;
let tenant: SeededTenant;
let manager: SeededMember;
let member: SeededMember;
const statements: string[] = [];

beforeAll(async () => {
  provider = await startIdentityProvider();
  // The API role only: the statements counted are the requests' own, not the workers'.
  server = await startTestServer({ env: { ...provider.env, ROLE: 'api' }, onQuery: (sql) => statements.push(sql) });
  const step = seeder(server, provider).tenant();
  tenant = await step;
  manager = await step.member('manager');
  member = await step.member('member');
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

const path = (resource: string) => `/tenants/${tenant.id}/${resource}`;

async function eventTypes(subjectId: string): Promise<string[]> {
  return (await server.app.db.event.findMany({ where: { subjectId }, orderBy: { id: 'asc' } })).map((event) => event.type);
}

describe('projects', () => {
  it('are managed by managers, read by members, filtered by status, and archived rather than deleted once they have time', async () => {
    const acme = await manager.api.post<{ id: string }>(path('clients'), { name: 'ACME' });
    const created = await manager.api.post<Project>(path('projects'), {
      name: 'Relaunch',
      code: 'WEB-1',
      clientId: acme.body.id,
      hourlyRate: '95.50',
      budgetHours: 40,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Relaunch',
      code: 'WEB-1',
      clientId: acme.body.id,
      hourlyRate: '95.50',
      budgetHours: '40',
      budgetPeriod: 'total',
      spentMinutes: 0,
      status: 'active',
      billable: true,
    });
    expect((await member.api.get<Project>(`${path('projects')}/${created.body.id}`)).body.name).toBe('Relaunch');
    expect((await member.api.post(path('projects'), { name: 'Mine' })).status).toBe(403);

    const duplicate = await manager.api.post<Problem>(path('projects'), { name: 'Other', code: 'WEB-1' });
    expect(duplicate.body).toMatchObject({ status: 409, reason: 'CODE_TAKEN', errors: [{ path: 'code', message: 'is already taken' }] });

    await member.api.post(path('entries'), { startedAt: '2026-04-01T09:00:00Z', endedAt: '2026-04-01T10:00:00Z', projectId: created.body.id });
    const refused = await manager.api.delete<Problem>(`${path('projects')}/${created.body.id}`);
    expect(refused.body).toMatchObject({ status: 409, code: 'CONFLICT', reason: 'PROJECT_HAS_ENTRIES' });
    expect(refused.body.detail).toContain('archive it instead');
    const archived = await manager.api.patch<Project>(`${path('projects')}/${created.body.id}`, { status: 'archived', code: null });
    expect(archived.body).toMatchObject({ status: 'archived', code: null });
    expect((await manager.api.get<Project[]>(path('projects'), { query: { status: 'archived' } })).body.map((project) => project.id)).toEqual([
      created.body.id,
    ]);
    // An archived project takes no new time.
    const onArchived = await member.api.post<Problem>(path('entries'), {
      startedAt: '2026-04-02T09:00:00Z',
      endedAt: '2026-04-02T10:00:00Z',
      projectId: created.body.id,
    });
    expect(onArchived.body.errors).toEqual([{ path: 'projectId', message: 'is an archived project' }]);

    const empty = await manager.api.post<Project>(path('projects'), { name: 'Empty' });
    expect((await manager.api.delete(`${path('projects')}/${empty.body.id}`)).status).toBe(204);
    expect(await eventTypes(created.body.id)).toEqual(['project.created', 'project.updated']);
    expect(await eventTypes(empty.body.id)).toEqual(['project.created', 'project.deleted']);
  });

  it('refuse bad input, naming the field', async () => {
    for (const [body, field] of [
      [{ name: '' }, 'name'],
      [{ name: 'x', color: 'red' }, 'color'],
      [{ name: 'x', hourlyRate: -1 }, 'hourlyRate'],
      [{ name: 'x', code: 'has spaces' }, 'code'],
      [{ name: 'x', status: 'paused' }, 'status'],
      [{ name: 'x', owner: 'me' }, 'owner'],
    ] as const) {
      const response = await manager.api.post<Problem>(path('projects'), body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errors?.[0]?.path).toBe(field);
    }
  });
});

describe('vehicles', () => {
  it('have a licence plate unique in the tenant (409), written the same whatever the case and spacing', async () => {
    const van = await manager.api.post<Vehicle>(path('vehicles'), { name: 'Van', licensePlate: 'b-ab  123', odometerKm: 1200 });
    expect(van.body).toMatchObject({ licensePlate: 'B-AB 123', status: 'active' });
    const again = await manager.api.post<Problem>(path('vehicles'), { name: 'Van 2', licensePlate: 'B-ab 123' });
    expect(again.body).toMatchObject({ status: 409, reason: 'PLATE_TAKEN', errors: [{ path: 'licensePlate', message: 'is already taken' }] });
    // Another tenant may have the same plate.
    const other = await seeder(server).tenant();
    expect((await other.api.post(`/tenants/${other.id}/vehicles`, { name: 'Van', licensePlate: 'B-AB 123' })).status).toBe(201);
  });

  it('are assigned to active members only', async () => {
    const invited = await tenant.api.post<{ id: string }>(path('users'), { email: 'not-yet@example.test' });
    const refused = await manager.api.post<Problem>(path('vehicles'), { name: 'Car', licensePlate: 'CAR 1', assignedTenantUserId: invited.body.id });
    expect(refused.body.errors).toEqual([{ path: 'assignedTenantUserId', message: 'is a member who is invited, not active' }]);
    const assigned = await manager.api.post<Vehicle>(path('vehicles'), { name: 'Car', licensePlate: 'CAR 1', assignedTenantUserId: member.id });
    expect(assigned.body.assignedTenantUserId).toBe(member.id);
    const retired = await manager.api.patch<Vehicle>(`${path('vehicles')}/${assigned.body.id}`, { status: 'retired' });
    expect(retired.body.status).toBe('retired');
  });
});

describe('task lists and tasks', () => {
  it('keep completedAt with done, assign active members, and let members move only their own tasks', async () => {
    const list = await manager.api.post<TaskList>(path('task-lists'), { name: 'Sprint 12' });
    const tasks = `${path('task-lists')}/${list.body.id}/tasks`;
    const task = await manager.api.post<Task>(tasks, { title: 'Design review', assigneeId: member.id, dueDate: '2026-05-01', position: 2 });
    expect(task.body).toMatchObject({ status: 'open', assigneeId: member.id, dueDate: '2026-05-01', completedAt: null });
    const other = await manager.api.post<Task>(tasks, { title: 'Not yours', position: 1 });

    const done = await member.api.patch<Task>(`${tasks}/${task.body.id}`, { status: 'done' });
    expect(done.body.status).toBe('done');
    expect(done.body.completedAt).not.toBeNull();
    const reopened = await member.api.patch<Task>(`${tasks}/${task.body.id}`, { status: 'in_progress' });
    expect(reopened.body.completedAt).toBeNull();

    const notTheirs = await member.api.patch<Problem>(`${tasks}/${other.body.id}`, { status: 'done' });
    expect(notTheirs.body).toMatchObject({ status: 403, detail: 'You may change only tasks assigned to you' });
    const notStatus = await member.api.patch<Problem>(`${tasks}/${task.body.id}`, { title: 'Renamed' });
    expect(notStatus.body).toMatchObject({ status: 403, detail: 'Members may change only the status of their tasks, not title' });
    expect((await member.api.post(tasks, { title: 'Mine' })).status).toBe(403);

    const stranger = await manager.api.post<Problem>(tasks, { title: 'x', assigneeId: '0199a1f0-0000-7000-8000-000000000000' });
    expect(stranger.body.errors).toEqual([{ path: 'assigneeId', message: 'is not a member of this tenant' }]);

    // In list order; a task under another list's path is not found.
    expect((await member.api.get<Task[]>(tasks)).body.map((each) => each.title)).toEqual(['Not yours', 'Design review']);
    const elsewhere = await manager.api.post<TaskList>(path('task-lists'), { name: 'Elsewhere' });
    expect((await manager.api.patch(`${path('task-lists')}/${elsewhere.body.id}/tasks/${task.body.id}`, { status: 'open' })).status).toBe(404);

    expect(await eventTypes(task.body.id)).toEqual(['task.created', 'task.assigned', 'task.updated', 'task.completed', 'task.updated']);
    expect((await manager.api.delete(`${path('task-lists')}/${list.body.id}`)).status).toBe(204);
    expect(await server.app.db.task.count({ where: { taskListId: list.body.id } })).toBe(0);
  });

  it('books entries on a task only with its own project', async () => {
    const [first, second] = [
      await manager.api.post<Project>(path('projects'), { name: 'First' }),
      await manager.api.post<Project>(path('projects'), { name: 'Second' }),
    ];
    const list = await manager.api.post<TaskList>(path('task-lists'), { name: 'First tasks', projectId: first.body.id });
    const task = await manager.api.post<Task>(`${path('task-lists')}/${list.body.id}/tasks`, { title: 'Build' });
    const wrong = await member.api.post<Problem>(path('entries'), {
      startedAt: '2026-04-03T09:00:00Z',
      endedAt: '2026-04-03T10:00:00Z',
      projectId: second.body.id,
      taskId: task.body.id,
    });
    expect(wrong.body.errors).toEqual([{ path: 'taskId', message: 'belongs to another project' }]);
    const right = await member.api.post(path('entries'), {
      startedAt: '2026-04-03T09:00:00Z',
      endedAt: '2026-04-03T10:00:00Z',
      projectId: first.body.id,
      taskId: task.body.id,
    });
    expect(right.status).toBe(201);
  });
});

describe('GraphQL for rich clients', () => {
  it('loads entries with their project, task, vehicle and member in a fixed number of statements, whatever the page size', async () => {
    const project = await manager.api.post<Project>(path('projects'), { name: 'Relations' });
    const list = await manager.api.post<TaskList>(path('task-lists'), { name: 'Relations', projectId: project.body.id });
    const task = await manager.api.post<Task>(`${path('task-lists')}/${list.body.id}/tasks`, { title: 'Relate' });
    const vehicle = await manager.api.post<Vehicle>(path('vehicles'), { name: 'Relation van', licensePlate: 'REL 1' });
    for (let day = 1; day <= 30; day += 1) {
      await member.api.post(path('entries'), {
        startedAt: `2026-06-${String(day).padStart(2, '0')}T09:00:00Z`,
        endedAt: `2026-06-${String(day).padStart(2, '0')}T10:00:00Z`,
        projectId: project.body.id,
        taskId: task.body.id,
        vehicleId: vehicle.body.id,
      });
    }
    const query = `query ($t: ID!, $n: Int!) { entriesConnection(tenantId: $t, first: $n) {
      totalCount edges { node { id project { name } task { title taskList { name } } vehicle { licensePlate } tenantUser { email } } } } }`;
    const count = async (n: number) => {
      statements.length = 0;
      const response = await manager.api.graphql<{ entriesConnection: { totalCount: number; edges: { node: { project: { name: string } } }[] } }>(query, {
        t: tenant.id,
        n,
      });
      expect(response.body.errors).toBeUndefined();
      expect(response.body.data?.entriesConnection.edges[0]?.node.project.name).toBe('Relations');
      return statements.length;
    };
    const few = await count(3);
    const many = await count(30);
    expect(many).toBe(few);
    // The session and its user, the tenant guard (two), the page, each relation once, the count.
    expect(many).toBeLessThanOrEqual(14);
  });

  it('pages projects and tasks as connections with a total count and a filter', async () => {
    const response = await member.api.graphql<{ projectsConnection: { totalCount: number }; tasksConnection: { totalCount: number; edges: unknown[] } }>(
      'query ($t: ID!) { projectsConnection(tenantId: $t, first: 1, filter: { status: active }) { totalCount } tasksConnection(tenantId: $t, first: 2, filter: { status: open }) { totalCount edges { node { id } } } }',
      { t: tenant.id },
    );
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data?.projectsConnection.totalCount).toBeGreaterThan(1);
    expect(response.body.data?.tasksConnection.edges.length).toBeLessThanOrEqual(2);
  });
});
