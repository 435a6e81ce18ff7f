import { authRoutes, authTag } from './http/auth-routes.js';
import { modules } from './modules/index.js';
import type { ModuleDefinition } from './modules/module.js';
import { tagged, type TaggedRouteSpec } from './rest/route.js';

/** The REST route table: sign-in first, then every module's rows in the order of the module list. */
function rowsOf(module: ModuleDefinition): TaggedRouteSpec[] {
  if (module.routes.length === 0) return [];
  if (!module.tag) throw new Error(`module ${module.name} has REST rows but no tag: declare one in its manifest`);
  return tagged(module.tag, module.routes, module.conflicts);
}

export const routeTable: readonly TaggedRouteSpec[] = [...tagged(authTag, authRoutes), ...modules.flatMap(rowsOf)];
