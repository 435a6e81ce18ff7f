/**
 * The domain services, one per module, built once per process and shared by
 * GraphQL, REST, workers and the CLI.
 */
import type { Services } from './modules/services.js';
import type { ModuleDefinition, ServiceDependencies } from './modules/module.js';
import { modules } from './modules/index.js';

type ServicesOf<List extends readonly ModuleDefinition[]> = {
  [Module in List[number] as Module['name']]: ReturnType<Module['createService']>;
};
type Built = ServicesOf<typeof modules>;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<Condition extends true> = Condition;
/** Compile-time proof that the module list builds exactly the services the modules declare. */
export type ModuleListBuildsServices = Assert<Same<Built, Services>>;

export function createServices(dependencies: ServiceDependencies): Services {
  return Object.fromEntries(modules.map((module) => [module.name, module.createService(dependencies)])) as Built;
}
