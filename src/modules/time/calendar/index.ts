import { nativeRoute } from '../../../rest/route.js';
import { defineModule } from '../../module.js';
import { CalendarFeedParameters, createCalendarService, type CalendarService } from './calendar.service.js';
import './calendar.graphql.js';

const token = '/tenants/{tenantId}/users/me/calendar-token';

/** Calendar feeds: a member's approved absences and holidays (and their team's, for managers) as iCalendar, at a secret URL. */
export const calendarModule = defineModule({
  name: 'calendars',
  createService: createCalendarService,
  tag: { name: 'Calendar', description: 'A secret iCalendar feed of absences and holidays per member' },
  routes: [
    // Under the calendar controller, so that its one tag holds every calendar row (users/me is where the caller's own things live).
    {
      controller: 'calendar',
      action: 'createCalendarToken',
      method: 'POST',
      path: token,
      field: 'Mutation.createCalendarToken',
      status: 201,
      summary: 'Make the caller’s calendar feed URL (answered once; a new one replaces the old)',
    },
    {
      controller: 'calendar',
      action: 'removeCalendarToken',
      method: 'DELETE',
      path: token,
      field: 'Mutation.deleteCalendarToken',
      status: 204,
      summary: 'Revoke the caller’s calendar feed URL',
    },
    nativeRoute({
      controller: 'calendar',
      action: 'feed',
      method: 'GET',
      path: '/calendar/{token}',
      summary: 'A calendar feed (iCalendar): /calendar/{token}.ics',
      description:
        'Public: the token in the URL is the credential (only its hash is stored; the member revokes it with DELETE users/me/calendar-token). ' +
        'The member’s approved absences and the holidays of their region, from a year back to two years ahead; for managers and admins also the ' +
        'approved absences of everyone in the tenant. Subscribe to it from Google Calendar, Thunderbird or any iCalendar client.',
      access: 'public',
      parameters: CalendarFeedParameters,
      responses: { '200': { description: 'The calendar', contentType: ['text/calendar; charset=utf-8'] } },
      async handler({ parameters, context }) {
        return {
          status: 200,
          headers: { 'content-type': 'text/calendar; charset=utf-8', 'cache-control': 'private, max-age=300', 'x-content-type-options': 'nosniff' },
          body: await context.services.calendars.feed(parameters.token),
        };
      },
    }),
  ],
});

declare module '../../services.js' {
  interface Services {
    calendars: CalendarService;
  }
}
