import { defineModule } from '../module.js';
import { createEventService, type EventService } from './event.service.js';
import './event.graphql.js';

/** The event stream itself, live over graphql-ws (`tenantEvents`); webhooks carry the same envelopes. */
export const eventModule = defineModule({
  name: 'events',
  createService: createEventService,
  routes: [],
});

declare module '../services.js' {
  interface Services {
    events: EventService;
  }
}
