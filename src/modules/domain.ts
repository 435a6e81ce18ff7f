/**
 * What a domain is: a folder of module folders under src/modules/ that serve
 * one part of the business (tracking time, billing it, ...), with its
 * manifest (`<domain>/index.ts`): its name, what it is for, the domains
 * below it that its modules may import, and its modules. Dependencies point
 * one way: a domain imports only the domains its manifest names in `uses`,
 * and no module or domain imports in a circle
 * (test/architecture/layering.test.ts checks both). docs/architecture.md
 * draws the domains and what each may use.
 */
import type { ModuleDefinition } from './module.js';

/** The domains, lowest first: a domain may use only domains before it here. */
export const domainNames = ['platform', 'tracking', 'inbox', 'time', 'billing', 'insight'] as const;
export type DomainName = (typeof domainNames)[number];

export interface DomainDefinition<Name extends DomainName = DomainName, Modules extends readonly ModuleDefinition[] = readonly ModuleDefinition[]> {
  name: Name;
  /** What the domain serves, in a sentence: where a reader looks for it. */
  description: string;
  /** The domains its modules may import (lower ones only). */
  uses: readonly Exclude<DomainName, Name>[];
  /**
   * Its modules with a manifest, in the order their REST rows are listed. A module folder without a manifest
   * (values or rules several modules share, such as `tracking/party/`) is in no list.
   */
  modules: Modules;
}

export function defineDomain<const Name extends DomainName, const Modules extends readonly ModuleDefinition[]>(
  domain: DomainDefinition<Name, Modules>,
): DomainDefinition<Name, Modules> {
  return domain;
}
