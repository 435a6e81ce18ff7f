/** The checker of src/modules/'s dependencies, on import graphs made up to break each rule once. */
import { describe, expect, it } from 'vitest';
import { dependencyViolations, type Import, ruleViolations } from './dependencies.js';

const domains = [
  { name: 'platform', uses: [] },
  { name: 'tracking', uses: ['platform'] },
  { name: 'time', uses: ['platform', 'tracking'] },
  { name: 'billing', uses: ['platform', 'tracking', 'time'] },
];

/** A graph that keeps every rule: the kit, manifests, and imports within a domain and down to allowed ones. */
const lawful: Import[] = [
  { from: 'index.ts', to: 'platform/index.ts' },
  { from: 'platform/index.ts', to: 'platform/tenant/index.ts' },
  { from: 'platform/index.ts', to: 'domain.ts' },
  { from: 'platform/tenant/index.ts', to: 'module.ts' },
  { from: 'tracking/entry/entry.service.ts', to: 'tracking/project/project.service.ts' },
  { from: 'tracking/entry/entry.service.ts', to: 'platform/tenant/tenant.settings.ts' },
  { from: 'time/vacation/vacation.service.ts', to: 'time/member-days/member-days.facts.ts' },
  { from: 'time/time-balance/time-balance.service.ts', to: 'time/vacation/vacation.service.ts' },
  { from: 'billing/client-invoice/client-invoice.service.ts', to: 'tracking/party/party.fields.ts' },
];

describe('the dependency rules of src/modules/', () => {
  it('pass a graph that keeps them', () => {
    expect(dependencyViolations(lawful, domains)).toEqual([]);
    expect(ruleViolations(domains)).toEqual([]);
  });

  it('catch a cycle between modules of one domain, naming the imports that close it', () => {
    const cycle = [...lawful, { from: 'time/member-days/member-days.inputs.ts', to: 'time/time-balance/time-balance.service.ts' }];
    expect(dependencyViolations(cycle, domains)).toEqual([
      'module cycle time/member-days -> time/time-balance -> time/vacation -> time/member-days (' +
        'time/member-days/member-days.inputs.ts imports time/time-balance/time-balance.service.ts; ' +
        'time/time-balance/time-balance.service.ts imports time/vacation/vacation.service.ts; ' +
        'time/vacation/vacation.service.ts imports time/member-days/member-days.facts.ts)',
    ]);
  });

  it('catch a cycle between domains even where no module cycle closes it, and where the manifests allow each edge', () => {
    const allowingBoth = [
      { name: 'tracking', uses: ['billing'] },
      { name: 'billing', uses: ['tracking'] },
    ];
    const graph = [
      { from: 'billing/client-invoice/client-invoice.service.ts', to: 'tracking/party/party.fields.ts' },
      { from: 'tracking/client/client.service.ts', to: 'billing/billing-profile/billing-profile.service.ts' },
    ];
    expect(dependencyViolations(graph, allowingBoth)).toEqual([
      'domain cycle billing -> tracking -> billing (' +
        'billing/client-invoice/client-invoice.service.ts imports tracking/party/party.fields.ts; ' +
        'tracking/client/client.service.ts imports billing/billing-profile/billing-profile.service.ts)',
    ]);
    // Such rules are themselves refused: a domain uses only domains below it.
    expect(ruleViolations(allowingBoth)).toEqual(['tracking uses billing, which is not below it']);
  });

  it('catch an import of a domain its manifest does not allow', () => {
    const upward = [...lawful, { from: 'platform/tenant/tenant.settings.ts', to: 'time/holiday/holiday.regions.ts' }];
    expect(dependencyViolations(upward, domains)).toEqual([
      "platform/tenant/tenant.settings.ts imports time/holiday/holiday.regions.ts: platform may not use time (its manifest's uses: none)",
    ]);
  });

  it('catch the upward import and both cycles it closes, when a module imports one that imports it back', () => {
    const back = [...lawful, { from: 'platform/tenant/tenant.settings.ts', to: 'tracking/entry/entry.service.ts' }];
    expect(dependencyViolations(back, domains)).toEqual([
      "platform/tenant/tenant.settings.ts imports tracking/entry/entry.service.ts: platform may not use tracking (its manifest's uses: none)",
      'module cycle platform/tenant -> tracking/entry -> platform/tenant (' +
        'platform/tenant/tenant.settings.ts imports tracking/entry/entry.service.ts; tracking/entry/entry.service.ts imports platform/tenant/tenant.settings.ts)',
      'domain cycle platform -> tracking -> platform (' +
        'platform/tenant/tenant.settings.ts imports tracking/entry/entry.service.ts; tracking/entry/entry.service.ts imports platform/tenant/tenant.settings.ts)',
    ]);
  });

  it('keep manifests to their own modules, modules off manifests and the list, and domains to their modules', () => {
    const graph = [
      { from: 'tracking/index.ts', to: 'platform/tenant/index.ts' },
      { from: 'tracking/index.ts', to: 'tracking/entry/entry.service.ts' },
      { from: 'tracking/entry/entry.service.ts', to: 'platform/index.ts' },
      { from: 'tracking/entry/entry.service.ts', to: 'index.ts' },
      { from: 'tracking/helpers.ts', to: 'module.ts' },
      { from: 'expenses/expense/expense.service.ts', to: 'module.ts' },
    ];
    expect(dependencyViolations(graph, domains)).toEqual([
      "tracking/helpers.ts is in a domain's folder but in no module: only the manifest (index.ts) sits beside the modules",
      'expenses/expense/expense.service.ts is in expenses/, which is no domain: add it to src/modules/domain.ts and src/modules/index.ts',
      "tracking/index.ts imports platform/tenant/index.ts: a domain's manifest imports its own modules' manifests only",
      "tracking/index.ts imports tracking/entry/entry.service.ts: a domain's manifest imports its own modules' manifests only",
      "tracking/entry/entry.service.ts imports platform/index.ts: a module never imports a domain's manifest",
      'tracking/entry/entry.service.ts imports index.ts: a module never imports the module list',
    ]);
  });
});
