/**
 * What a heap snapshot holds, or what a later one holds that an earlier one
 * did not (test/bench/memory-phases.ts writes one after each phase):
 *
 *   node test/bench/heap-diff.mjs after.heapsnapshot               the largest kinds of object
 *   node test/bench/heap-diff.mjs before.heapsnapshot after.heapsnapshot
 *                                  objects in `after` whose id `before` does not have, by kind
 *
 * A kind is V8's node type and name (an object's constructor, `(compiled code)`,
 * a string, ...). `HEAP_TOP=40` rows; `HEAP_STRINGS=1` also lists the largest
 * strings (module sources show up here) with their first characters.
 */
import fs from 'node:fs';

const top = Number(process.env.HEAP_TOP ?? 30);

function load(file) {
  const { snapshot, nodes, edges, strings } = JSON.parse(fs.readFileSync(file, 'utf8'));
  const fields = snapshot.meta.node_fields;
  const types = snapshot.meta.node_types[0];
  return { nodes, edges, strings, width: fields.length, at: Object.fromEntries(fields.map((field, index) => [field, index])), types };
}

/** Every node as [kind, id, self size, name]. */
function* walk(heap) {
  const { nodes, width, at, types, strings } = heap;
  for (let offset = 0; offset < nodes.length; offset += width) {
    const type = types[nodes[offset + at.type]];
    const name = strings[nodes[offset + at.name]];
    const kind = type === 'object' || type === 'closure' || type === 'native' ? `${type} ${name}` : type === 'code' ? `code ${name.slice(0, 40)}` : type;
    yield [kind, nodes[offset + at.id], nodes[offset + at.self_size], name];
  }
}

function table(sizes, counts, title) {
  const total = [...sizes.values()].reduce((sum, size) => sum + size, 0);
  const rows = [...sizes].sort((a, b) => b[1] - a[1]).slice(0, top);
  process.stdout.write(`${title}: ${(total / 1048576).toFixed(2)} MB in all\n`);
  for (const [kind, size] of rows) {
    process.stdout.write(`${(size / 1048576).toFixed(2).padStart(9)} MB ${String(counts.get(kind)).padStart(8)}  ${kind.slice(0, 110)}\n`);
  }
}

const [first, second] = process.argv.slice(2);
if (!first) throw new Error('usage: node test/bench/heap-diff.mjs [before.heapsnapshot] after.heapsnapshot');
const after = load(second ?? first);
const known = new Set();
if (second) for (const [, id] of walk(load(first))) known.add(id);
const sizes = new Map();
const counts = new Map();
const largeStrings = [];
for (const [kind, id, size, name] of walk(after)) {
  if (known.has(id)) continue;
  sizes.set(kind, (sizes.get(kind) ?? 0) + size);
  counts.set(kind, (counts.get(kind) ?? 0) + 1);
  if (process.env.HEAP_STRINGS === '1' && (kind === 'string' || kind === 'concatenated string') && size > 20_000) largeStrings.push([size, name]);
}
table(sizes, counts, second ? `new in ${second}` : first);
if (largeStrings.length > 0) {
  process.stdout.write('\nlargest strings:\n');
  for (const [size, name] of largeStrings.sort((a, b) => b[0] - a[0]).slice(0, top)) {
    process.stdout.write(`${(size / 1048576).toFixed(2).padStart(9)} MB  ${JSON.stringify(name.slice(0, 100))}\n`);
  }
}
