/**
 * Live pushes for GraphQL subscriptions, from whichever process wrote the
 * change. New events and notifications NOTIFY on commit (triggers on their
 * tables) with ids only; each API process LISTENs, on one connection opened
 * when its first subscriber arrives, and hands the ids to the matching
 * subscribers, which re-read what their caller may see.
 */
import type { PgListener } from '../db/listener.js';
import type { Logger } from '../lib/logger.js';
import { eventsChannel } from './dispatcher.js';

export const notificationsChannel = 'tally_notifications';

/** A committed event, as its NOTIFY names it. */
export interface LiveEvent {
  id: string;
  tenantId: string;
  type: string;
}

export interface LiveFeed<Item> extends AsyncIterableIterator<Item> {
  return(): Promise<IteratorResult<Item>>;
}

export interface LiveEvents {
  /** Ids of the notifications created for this member. */
  notificationsOf(tenantUserId: string): Promise<LiveFeed<string>>;
  /** The tenant's events as they commit. */
  eventsOf(tenantId: string): Promise<LiveFeed<LiveEvent>>;
  /** Every committed event of every tenant (for closing the sockets of revoked keys). */
  onEvent(handler: (event: LiveEvent) => void): Promise<() => void>;
  /** Subscribers now open, by kind (for /metrics and tests). */
  counts(): { notifications: number; events: number };
}

/** A subscriber that reads slower than this many pending items loses the oldest (and the log says so). */
const maxPending = 1000;

/** A push-to-pull queue: what the listener pushes, the subscription reads. */
function feed<Item>(log: Logger, onClose: () => void): { push(item: Item): void; iterator: LiveFeed<Item> } {
  const pending: Item[] = [];
  let waiting: ((result: IteratorResult<Item>) => void) | undefined;
  let closed = false;
  let dropped = 0;
  const close = (): Promise<IteratorResult<Item>> => {
    if (!closed) {
      closed = true;
      onClose();
      waiting?.({ value: undefined, done: true });
      waiting = undefined;
    }
    return Promise.resolve({ value: undefined, done: true });
  };
  const iterator: LiveFeed<Item> = {
    next() {
      if (closed) return Promise.resolve({ value: undefined, done: true });
      const item = pending.shift();
      if (item !== undefined) return Promise.resolve({ value: item, done: false });
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
    return: close,
    throw(error?: unknown) {
      void close();
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return {
    iterator,
    push(item) {
      if (closed) return;
      if (waiting) {
        const resolve = waiting;
        waiting = undefined;
        resolve({ value: item, done: false });
        return;
      }
      pending.push(item);
      if (pending.length > maxPending) {
        pending.shift();
        dropped += 1;
        if (dropped === 1 || dropped % 100 === 0) log.warn({ dropped }, 'a live subscriber reads too slowly; its oldest pushes are dropped');
      }
    },
  };
}

/**
 * A subscription's iterator over a live feed: each pushed item read as the subscriber (`read` answers undefined
 * for what they may not see, which is skipped). Ending it (the socket closed) closes the feed at once. An async
 * generator would not: its `return()` waits for the `next()` under way, which waits for the next push, so a
 * closed socket kept its place among the subscribers until the member's next notification, or for ever.
 */
export function readEach<Item, Read>(feed: LiveFeed<Item>, read: (item: Item) => Promise<Read | undefined>): AsyncIterableIterator<Read> {
  const ended = async (): Promise<IteratorResult<Read>> => {
    await feed.return();
    return { value: undefined, done: true };
  };
  const iterator: AsyncIterableIterator<Read> = {
    async next() {
      try {
        for (;;) {
          const pushed = await feed.next();
          if (pushed.done) return { value: undefined, done: true };
          const value = await read(pushed.value);
          if (value !== undefined) return { value, done: false };
        }
      } catch (error) {
        await feed.return();
        throw error;
      }
    },
    return: ended,
    async throw(error?: unknown) {
      await ended();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

export function createLiveEvents({ listener, log }: { listener: PgListener; log: Logger }): LiveEvents {
  const notificationSubscribers = new Map<string, Set<(id: string) => void>>();
  const eventSubscribers = new Map<string, Set<(event: LiveEvent) => void>>();
  const eventHandlers = new Set<(event: LiveEvent) => void>();
  let listening: Promise<void> | undefined;

  const onNotification = (payload: string) => {
    const [id, tenantUserId] = payload.split(' ');
    if (!id || !tenantUserId) return;
    for (const push of notificationSubscribers.get(tenantUserId) ?? []) push(id);
  };
  const onEvent = (payload: string) => {
    const [id, tenantId, type] = payload.split(' ');
    if (!id || !tenantId || !type || tenantId === '-') return;
    const event = { id, tenantId, type };
    for (const push of eventSubscribers.get(tenantId) ?? []) push(event);
    for (const handler of eventHandlers) handler(event);
  };

  function ensureListening(): Promise<void> {
    listening ??= (async () => {
      await listener.listen(notificationsChannel, onNotification);
      await listener.listen(eventsChannel, onEvent);
      listener.onReconnect(() => log.warn('live subscribers may have missed pushes while the LISTEN connection was down'));
    })().catch((error: unknown) => {
      listening = undefined;
      throw error;
    });
    return listening;
  }

  function subscribe<Item>(registry: Map<string, Set<(item: Item) => void>>, key: string): LiveFeed<Item> {
    let set = registry.get(key);
    if (!set) {
      set = new Set();
      registry.set(key, set);
    }
    const subscribers = set;
    const { push, iterator } = feed<Item>(log, () => {
      subscribers.delete(push);
      if (subscribers.size === 0) registry.delete(key);
    });
    subscribers.add(push);
    return iterator;
  }

  const total = (registry: Map<string, Set<unknown>>) => [...registry.values()].reduce((sum, set) => sum + set.size, 0);

  return {
    async notificationsOf(tenantUserId) {
      await ensureListening();
      return subscribe(notificationSubscribers, tenantUserId);
    },
    async eventsOf(tenantId) {
      await ensureListening();
      return subscribe(eventSubscribers, tenantId);
    },
    async onEvent(handler) {
      await ensureListening();
      eventHandlers.add(handler);
      return () => eventHandlers.delete(handler);
    },
    counts: () => ({ notifications: total(notificationSubscribers), events: total(eventSubscribers) }),
  };
}
