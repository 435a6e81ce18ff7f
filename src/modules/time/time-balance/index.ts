import { defineModule } from '../../module.js';
import { createTimeBalanceWork } from './time-balance.cap.js';
import { createTimeBalanceService, type TimeBalanceService } from './time-balance.service.js';
import './time-balance.graphql.js';

/** Time balances: expected against worked time, and the overtime account. */
export const timeBalanceModule = defineModule({
  name: 'timeBalances',
  createService: createTimeBalanceService,
  tag: { name: 'TimeBalances', description: 'Expected and worked time of a member, and the overtime balance' },
  routes: [
    {
      controller: 'timeBalance',
      action: 'findOne',
      method: 'GET',
      path: '/tenants/{tenantId}/users/{tenantUserId}/time-balance',
      field: 'Query.timeBalance',
      status: 200,
      summary: 'A member’s time balance per day or month (members: their own)',
    },
    {
      controller: 'timeBalance',
      action: 'correct',
      method: 'POST',
      path: '/tenants/{tenantId}/users/{tenantUserId}/time-balance/corrections',
      field: 'Mutation.correctTimeBalance',
      status: 201,
      summary: 'Correct a member’s time balance, with a reason: overtime paid out or forfeited (admins)',
    },
  ],
  createWork: createTimeBalanceWork,
  reactsToEvents: (work, tx, events) => work.checkCaps(tx, events),
});

declare module '../../services.js' {
  interface Services {
    timeBalances: TimeBalanceService;
  }
}
