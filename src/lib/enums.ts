/**
 * Value sets shared by several modules. Each comes from its Prisma enum (or is
 * listed here once, for values stored in JSON); a module's own enums live in
 * the module, defined the same way.
 */
import { ActorType, TenantRole, TenantStatus, TenantUserStatus } from '../generated/prisma/enums.js';
import { defineEnum } from './vocabulary.js';

export const enums = {
  TenantStatus: defineEnum('TenantStatus', TenantStatus),
  TenantRole: defineEnum('TenantRole', TenantRole),
  TenantUserStatus: defineEnum('TenantUserStatus', TenantUserStatus),
  ActorType: defineEnum('ActorType', ActorType),
  WeekStart: defineEnum('WeekStart', ['monday', 'sunday', 'saturday']),
  /** The working-time law a tenant's days are checked against (CONTRACT.md section 11). */
  WorkingTimeRuleSet: defineEnum('WorkingTimeRuleSet', ['none', 'eu', 'de']),
};
