/**
 * Reads one module starts beside another module's write. A read that derives something for the write's answer
 * from data the write does not change (working time: the member's other entries of the day, for the warnings of
 * an entry write) runs on a connection of its own while the write's transaction runs, instead of after the
 * commit, on the answer's path. The module that reads subscribes when its service is built; the writing service
 * announces the write before its transaction. One per set of services (runtime.ts), like the services.
 */
import type { TenantAccess } from '../auth/tenant-access.js';

/** An entry write about to run, as the caller sent it: whose time, and when. */
export interface EntryWriteAhead {
  access: TenantAccess;
  tenantUserId: string;
  startedAt: Date;
  endedAt: Date | null;
}

export interface BesideWrites {
  /** Starts `read` beside each entry write; it keeps its own failures (it must not throw). */
  onEntryWrite(read: (write: EntryWriteAhead) => void): void;
  /** Announces an entry write, before its transaction. */
  entryWrite(write: EntryWriteAhead): void;
}

export function createBesideWrites(): BesideWrites {
  const entryReads: ((write: EntryWriteAhead) => void)[] = [];
  return {
    onEntryWrite(read) {
      entryReads.push(read);
    },
    entryWrite(write) {
      for (const read of entryReads) read(write);
    },
  };
}
