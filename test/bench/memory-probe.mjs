/**
 * Preloaded (`--import`) into the API process by test/bench/memory-phases.ts
 * when it asks for more than resident memory: over the IPC channel of the
 * process it answers `{ gc, snapshot }` with `process.memoryUsage()` (after
 * two full collections when `gc` is set and Node runs with --expose-gc), and
 * writes a heap snapshot to `snapshot` when given. Never part of Tally: the
 * measurement's instrument.
 */
import v8 from 'node:v8';

if (process.send) {
  process.channel?.unref();
  process.on('message', (message) => {
    if (message?.type !== 'measure') return;
    if (message.gc && typeof globalThis.gc === 'function') {
      globalThis.gc();
      globalThis.gc();
    }
    const usage = process.memoryUsage();
    const heap = v8.getHeapStatistics();
    const spaces = Object.fromEntries(
      v8
        .getHeapSpaceStatistics()
        .map((space) => [space.space_name, { size: space.space_size, used: space.space_used_size, physical: space.physical_space_size }]),
    );
    if (message.snapshot) v8.writeHeapSnapshot(message.snapshot);
    process.send?.({ type: 'measured', usage, mallocedMemory: heap.malloced_memory, externalMemory: heap.external_memory, spaces });
  });
}
