/**
 * The rules of src/modules/ as a checker of an import graph, so that it can be
 * tested on graphs made up for the purpose (dependencies.test.ts) as well as
 * run on the real one (layering.test.ts). Paths are relative to src/modules/:
 * - a file at the top (`index.ts`, `module.ts`, `domain.ts`, `services.ts`) is the kit every module uses;
 * - `<domain>/index.ts` is a domain's manifest: it imports its own modules' manifests, nothing else of theirs;
 * - `<domain>/<module>/...` is a module's file; a domain holds nothing else.
 * A module imports other modules of its domain and of the domains its manifest
 * `uses`; never a domain's manifest or the module list; and no import closes
 * a circle, between modules or between domains.
 */

export interface Import {
  /** The importing file. */
  from: string;
  /** The imported file (its source, `.ts`). */
  to: string;
}

export interface DomainRule {
  name: string;
  /** The domains its modules may import. */
  uses: readonly string[];
}

type Place =
  | { kind: 'kit'; file: string }
  | { kind: 'manifest'; domain: string }
  | { kind: 'module'; domain: string; module: string }
  | { kind: 'stray'; file: string };

function placeOf(file: string): Place {
  const parts = file.split('/');
  if (parts.length === 1) return { kind: 'kit', file };
  if (parts.length === 2) return parts[1] === 'index.ts' ? { kind: 'manifest', domain: parts[0] as string } : { kind: 'stray', file };
  return { kind: 'module', domain: parts[0] as string, module: `${parts[0]}/${parts[1]}` };
}

/** The strongly connected parts of a graph with more than one node (Tarjan), each as one circle through them. */
export function circles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of edges.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const part = new Set<string>();
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      part.add(member);
      if (member === node) break;
    }
    if (part.size > 1) found.push(circleWithin(edges, part));
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

/** One circle through the first node (by name) of a strongly connected part: the shortest way back to it. */
function circleWithin(edges: ReadonlyMap<string, ReadonlySet<string>>, part: ReadonlySet<string>): string[] {
  const start = [...part].sort()[0] as string;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() as string;
    for (const target of [...(edges.get(node) ?? [])].sort()) {
      if (!part.has(target)) continue;
      if (target === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0] as string) as string);
        return [...path, start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

/** Every breach of the rules above in `imports`, as sentences (empty when there is none). */
export function dependencyViolations(imports: readonly Import[], domains: readonly DomainRule[]): string[] {
  const rules = new Map(domains.map((domain) => [domain.name, new Set(domain.uses)]));
  const violations = new Set<string>();
  const moduleEdges = new Map<string, Set<string>>();
  const domainEdges = new Map<string, Set<string>>();
  /** A file of each edge: the import that a circle's report names. */
  const witness = new Map<string, string>();
  const addEdge = (graph: Map<string, Set<string>>, from: string, to: string, why: string) => {
    let targets = graph.get(from);
    if (!targets) graph.set(from, (targets = new Set()));
    targets.add(to);
    if (!witness.has(`${from} ${to}`)) witness.set(`${from} ${to}`, why);
  };
  for (const file of new Set(imports.flatMap((edge) => [edge.from, edge.to]))) {
    const place = placeOf(file);
    if (place.kind === 'stray') violations.add(`${file} is in a domain's folder but in no module: only the manifest (index.ts) sits beside the modules`);
    if ((place.kind === 'module' || place.kind === 'manifest') && !rules.has(place.domain)) {
      violations.add(`${file} is in ${place.domain}/, which is no domain: add it to src/modules/domain.ts and src/modules/index.ts`);
    }
  }
  for (const { from, to } of imports) {
    const source = placeOf(from);
    const target = placeOf(to);
    const line = `${from} imports ${to}`;
    if (source.kind === 'manifest') {
      const ownModuleManifest = target.kind === 'module' && target.domain === source.domain && to === `${target.module}/index.ts`;
      if (!ownModuleManifest && target.kind !== 'kit') violations.add(`${line}: a domain's manifest imports its own modules' manifests only`);
      continue;
    }
    if (source.kind !== 'module') continue;
    if (target.kind === 'manifest') violations.add(`${line}: a module never imports a domain's manifest`);
    if (target.kind === 'kit' && target.file === 'index.ts') violations.add(`${line}: a module never imports the module list`);
    if (target.kind !== 'module' || target.module === source.module) continue;
    addEdge(moduleEdges, source.module, target.module, line);
    if (target.domain === source.domain) continue;
    addEdge(domainEdges, source.domain, target.domain, line);
    if (rules.has(source.domain) && !rules.get(source.domain)?.has(target.domain)) {
      violations.add(
        `${line}: ${source.domain} may not use ${target.domain} (its manifest's uses: ${[...(rules.get(source.domain) ?? [])].join(', ') || 'none'})`,
      );
    }
  }
  const described = (kind: string, circle: string[]) =>
    `${kind} cycle ${circle.join(' -> ')} (${circle
      .slice(1)
      .map((to, step) => witness.get(`${circle[step]} ${to}`))
      .join('; ')})`;
  for (const circle of circles(moduleEdges)) violations.add(described('module', circle));
  for (const circle of circles(domainEdges)) violations.add(described('domain', circle));
  return [...violations];
}

/** What is wrong with the domains' rules themselves: each may use only domains below it (so the rules cannot make a circle). */
export function ruleViolations(domains: readonly DomainRule[]): string[] {
  const position = new Map(domains.map((domain, index) => [domain.name, index]));
  return domains.flatMap((domain, index) =>
    domain.uses.flatMap((used) => {
      const at = position.get(used);
      if (at === undefined) return [`${domain.name} uses ${used}, which is no domain`];
      return at < index ? [] : [`${domain.name} uses ${used}, which is not below it`];
    }),
  );
}
