/**
 * The domain services, one per module, built once per process
 * (src/services.ts builds them from the module list and checks at compile
 * time that the list builds exactly these). Each module adds its own entry
 * from its manifest, by `declare module` on this file: `interface Services {
 * notes: NoteService }`.
 *
 * Every method takes the caller's TenantAccess (or Actor) first, except
 * what the gate and sign-in need before there is a caller (apiKeys.check,
 * tenants.findByIdOrSlug, users.activateInvitations), invoices.stage,
 * which only spools an upload's bytes, and apiKeys.status, which reads a key
 * the caller already has against the clock. Work that jobs do on bare ids is not
 * here: it is in each module's work object (`<module>.work.ts`), which only
 * worker processes build and only job handlers receive.
 */
// biome-ignore lint/suspicious/noEmptyInterface: the manifests add their services here (declaration merging needs an interface).
export interface Services {}

// Resolvers reach the services through their context. The GraphQL kit is a layer below the modules and does not
// import them: the modules add the field to its context here.
declare module '../graphql/context.js' {
  interface GraphQLContext {
    services: Services;
  }
}
