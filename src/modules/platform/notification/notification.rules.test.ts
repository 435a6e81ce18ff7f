import { describe, expect, it } from 'vitest';
import type { OutboxEvent } from '../../../events/dispatcher.js';
import { formatMinutes, notificationsFor, type Audience, type Member } from './notification.rules.js';

const member = (id: string, role: Member['role'], extra: Partial<Member> = {}): Member => ({
  id,
  tenantId: 't1',
  userId: `user-${id}`,
  role,
  status: 'active',
  name: id,
  email: `${id}@example.test`,
  ...extra,
});

const people = [
  member('owner', 'owner'),
  member('admin', 'admin'),
  member('manager', 'manager'),
  member('away', 'manager', { status: 'deactivated' }),
  member('ann', 'member', { name: 'Ann' }),
  member('bob', 'member'),
  member('elsewhere', 'admin', { tenantId: 't2' }),
];

const audience: Audience = {
  member: (id) => people.find((person) => person.id === id),
  withRoles: (tenantId, roles) => people.filter((person) => person.tenantId === tenantId && person.status === 'active' && roles.includes(person.role)),
  timeZone: () => 'Europe/Berlin',
};

const event = (type: string, data: Record<string, unknown>, actor: Partial<OutboxEvent> = {}): OutboxEvent => ({
  id: 'e1',
  tenantId: 't1',
  type: type as OutboxEvent['type'],
  actorType: 'user',
  actorId: 'user-ann',
  subjectId: 's1',
  data,
  createdAt: new Date('2026-11-20T10:00:00Z'),
  ...actor,
});

const recipients = (input: OutboxEvent) =>
  notificationsFor(input, audience)
    .map((draft) => draft.tenantUserId)
    .sort();

describe('who is notified', () => {
  const entry = { tenantUserId: 'ann', status: 'submitted', startedAt: '2026-11-19T23:30:00Z', durationMinutes: 150, description: 'Report' };

  it('tells the active approvers of a submission, not its owner, in the tenant time zone', () => {
    const drafts = notificationsFor(event('entry.submitted', entry), audience);
    expect(drafts.map((draft) => draft.tenantUserId).sort()).toEqual(['admin', 'manager', 'owner']);
    expect(drafts[0]).toMatchObject({ title: 'Ann submitted time for approval', body: '2026-11-20 · 2 h 30 min · Report', data: { entryId: 's1' } });
  });

  it('tells nobody of a submission that approved itself (no approval required)', () => {
    expect(recipients(event('entry.submitted', { ...entry, status: 'approved' }))).toEqual([]);
  });

  it('tells the owner of an approval or rejection, unless they did it themselves', () => {
    expect(recipients(event('entry.rejected', { ...entry, rejectionReason: 'No' }, { actorId: 'user-manager' }))).toEqual(['ann']);
    expect(recipients(event('entry.approved', entry, { actorId: 'user-ann' }))).toEqual([]);
    expect(recipients(event('entry.approved', entry, { actorType: 'api_key', actorId: 'key-1' }))).toEqual(['ann']);
  });

  it('tells the approvers of an expense submitted, not its owner; the owner of its approval or rejection', () => {
    const expense = {
      tenantUserId: 'ann',
      status: 'submitted',
      date: '2026-03-05',
      category: 'travel',
      amount: '119',
      currency: 'EUR',
      description: 'Train Berlin-Hamburg',
    };
    const drafts = notificationsFor(event('expense.submitted', expense), audience);
    expect(drafts.map((draft) => draft.tenantUserId).sort()).toEqual(['admin', 'manager', 'owner']);
    expect(drafts[0]).toMatchObject({
      title: 'Ann submitted an expense for approval',
      body: '2026-03-05 · travel · 119.00 EUR · Train Berlin-Hamburg',
      data: { expenseId: 's1' },
    });
    // Waiting for its receipt to be read: no date or amount yet.
    expect(notificationsFor(event('expense.submitted', { ...expense, date: null, amount: null }), audience)[0]?.body).toBe('travel · Train Berlin-Hamburg');
    const rejected = notificationsFor(
      event('expense.rejected', { ...expense, status: 'rejected', rejectionReason: 'No receipt' }, { actorId: 'user-manager' }),
      audience,
    );
    expect(rejected).toMatchObject([
      { tenantUserId: 'ann', title: 'Your expense was rejected', body: 'No receipt (2026-03-05 · travel · 119.00 EUR · Train Berlin-Hamburg)' },
    ]);
    expect(recipients(event('expense.approved', { ...expense, status: 'approved' }, { actorId: 'user-admin' }))).toEqual(['ann']);
  });

  it('tells an assignee, an uploader, and the admins of failures; never a deactivated member or another tenant', () => {
    expect(recipients(event('task.assigned', { assigneeId: 'bob', title: 'Do it' }, { actorId: 'user-manager' }))).toEqual(['bob']);
    expect(recipients(event('task.assigned', { assigneeId: 'away', title: 'Do it' }))).toEqual([]);
    expect(recipients(event('task.assigned', { assigneeId: 'elsewhere', title: 'Do it' }))).toEqual([]);
    expect(recipients(event('invoice.ocr_failed', { uploadedById: 'bob', fileName: 'a.pdf' }, { actorType: 'system', actorId: null }))).toEqual(['bob']);
    expect(recipients(event('sync.failed', { name: 'Inbox', lastError: 'login failed' }, { actorType: 'system', actorId: null }))).toEqual(['admin', 'owner']);
    expect(recipients(event('webhook.disabled', { url: 'https://x.example' }, { actorType: 'system', actorId: null }))).toEqual(['admin', 'owner']);
    expect(recipients(event('note.created', { content: 'x' }))).toEqual([]);
  });

  it('writes durations as people read them', () => {
    expect([0, 45, 60, 150].map(formatMinutes)).toEqual(['0 min', '45 min', '1 h', '2 h 30 min']);
  });
});
