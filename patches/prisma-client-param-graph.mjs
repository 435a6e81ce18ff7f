// Run after patch-package (npm run patch-dependencies): a change to
// @prisma/client's runtime that patch-package cannot show readably, since the
// runtime is minified onto a few lines of hundreds of kilobytes each.
//
// Prisma's client reads its parameterization graph (the shapes of every
// model's arguments, for its query-plan cache) into one object per node whose
// edges are keyed by string index: `edges[1875] = ...`. Sparse integer keys
// make V8 give each such object an element array as long as its largest key,
// so Tally's 30 models took 8.6 MB of heap, held for the life of every
// process. Keyed in a Map, the same graph takes 1.9 MB. The change is three
// replacements in each of client.js and client.mjs; it fails, naming the
// file, when a Prisma upgrade changes the code, and does nothing when the
// runtime is patched already.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const runtime = path.dirname(createRequire(import.meta.url).resolve('@prisma/client/runtime/client'));
const replacements = [
  // input nodes: edges built into a Map...
  [
    'o={};for(let s=0;s<i;s++){let a=this.#i(),u=this.#a(),m=this.#o(),P=this.#o(),S={flags:this.#s()};u!==0&&(S.scalarMask=u),m!==void 0&&(S.childNodeId=m),P!==void 0&&(S.enumNameIndex=P),o[a]=S}',
    'o=new Map;for(let s=0;s<i;s++){let a=this.#i(),u=this.#a(),m=this.#o(),P=this.#o(),S={flags:this.#s()};u!==0&&(S.scalarMask=u),m!==void 0&&(S.childNodeId=m),P!==void 0&&(S.enumNameIndex=P),o.set(a,S)}',
    1,
  ],
  // output nodes: the same
  [
    'o={};for(let s=0;s<i;s++){let a=this.#i(),u=this.#o(),m=this.#o(),P={};u!==void 0&&(P.argsNodeId=u),m!==void 0&&(P.outputNodeId=m),o[a]=P}',
    'o=new Map;for(let s=0;s<i;s++){let a=this.#i(),u=this.#o(),m=this.#o(),P={};u!==void 0&&(P.argsNodeId=u),m!==void 0&&(P.outputNodeId=m),o.set(a,P)}',
    1,
  ],
  // ...and read from it (inputEdge and outputEdge)
  ['let o=n.edges[i];', 'let o=n.edges.get(i);', 2],
];

for (const file of ['client.js', 'client.mjs']) {
  const target = path.join(runtime, file);
  let source = fs.readFileSync(target, 'utf8');
  if (replacements.every(([, patched, times]) => source.split(patched).length - 1 === times)) continue;
  for (const [original, patched, times] of replacements) {
    const found = source.split(original).length - 1;
    if (found !== times) {
      console.error(`${target}: expected ${times} of ${JSON.stringify(original.slice(0, 60))}..., found ${found} (did Prisma change?)`);
      process.exit(1);
    }
    source = source.replaceAll(original, patched);
  }
  fs.writeFileSync(target, source);
}
