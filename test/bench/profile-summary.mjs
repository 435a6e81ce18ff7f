// Summarises a V8 CPU profile (node --cpu-prof): the functions with the most
// self time, and time by package (node_modules/<name>, our src/, node itself).
//   node test/bench/profile-summary.mjs <file.cpuprofile> [top=30]
//   PROFILE_PACKAGE=fets node test/bench/profile-summary.mjs ...   only that package's frames
//   PROFILE_UNDER=findMany,dispatch node test/bench/profile-summary.mjs ...   also the time spent in and under
//     the functions of these names (each sample counted once per name, however deep the recursion)
import fs from 'node:fs';

const [file, topArgument] = process.argv.slice(2);
if (!file) {
  console.error('usage: node test/bench/profile-summary.mjs <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArgument ?? 30);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMicros = new Map();
const deltas = profile.timeDeltas;
for (const [index, id] of profile.samples.entries()) selfMicros.set(id, (selfMicros.get(id) ?? 0) + (deltas[index] ?? 0));
const total = [...selfMicros.values()].reduce((sum, value) => sum + value, 0);
const idle = [...selfMicros.entries()]
  .filter(([id]) => ['(idle)', '(program)'].includes(byId.get(id)?.callFrame.functionName))
  .reduce((sum, [, value]) => sum + value, 0);

function packageOf(url) {
  if (!url) return '(native)';
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (module) return module[1];
  if (url.includes('/dist/') || url.includes('/src/')) return '(tally)';
  if (url.startsWith('node:')) return '(node)';
  return url;
}

const byFunction = new Map();
const byPackage = new Map();
const onlyPackage = process.env.PROFILE_PACKAGE;
for (const [id, micros] of selfMicros) {
  const { callFrame } = byId.get(id);
  if (['(idle)', '(program)'].includes(callFrame.functionName)) continue;
  if (onlyPackage && !packageOf(callFrame.url).includes(onlyPackage)) continue;
  const name = `${callFrame.functionName || '(anonymous)'} ${callFrame.url ? `${callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(dist|src)\//, '$1/')}:${callFrame.lineNumber + 1}` : ''}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  const pkg = packageOf(callFrame.url);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + micros);
}
const busy = total - idle;
const percent = (micros) => `${((micros / busy) * 100).toFixed(1).padStart(5)}%`;
console.log(`busy ${(busy / 1e6).toFixed(2)} s of ${(total / 1e6).toFixed(2)} s sampled (percentages of busy time)\n`);
console.log('by package:');
for (const [pkg, micros] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 20))
  if (pkg !== '(native)' || micros > 0) console.log(`  ${percent(micros)}  ${pkg}`);
console.log('\ntop frames (self time):');
for (const [name, micros] of [...byFunction]
  .sort((a, b) => b[1] - a[1])
  .filter(([name]) => !/^\((idle|program)\)/.test(name))
  .slice(0, top))
  console.log(`  ${percent(micros)}  ${name}`);

// Inclusive time: a sample counts for a name when that function is anywhere on its stack.
const under = (process.env.PROFILE_UNDER ?? '')
  .split(',')
  .map((name) => name.trim())
  .filter((name) => name !== '');
if (under.length > 0) {
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const inclusive = new Map(under.map((name) => [name, 0]));
  for (const [id, micros] of selfMicros) {
    const seen = new Set();
    for (let current = id; current !== undefined; current = parentOf.get(current)) {
      const name = byId.get(current)?.callFrame.functionName;
      if (inclusive.has(name) && !seen.has(name)) {
        seen.add(name);
        inclusive.set(name, inclusive.get(name) + micros);
      }
    }
  }
  console.log('\nin and under (inclusive):');
  for (const [name, micros] of inclusive) console.log(`  ${percent(micros)}  ${name}`);
}
