import { authRoutes } from './http/auth-routes.js';
import { modules } from './modules/index.js';
import type { RouteSpec } from './rest/route.js';

/** The REST route table: sign-in first, then every module's rows in the order of the module list. */
export const routeTable: readonly RouteSpec[] = [...authRoutes, ...modules.flatMap((module) => module.routes)];
