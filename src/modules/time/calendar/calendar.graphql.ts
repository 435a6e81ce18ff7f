import { builder } from '../../../graphql/builder.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { CalendarTokenArgs, type CalendarTokenView } from './calendar.service.js';

const CalendarTokenObject = builder.objectRef<CalendarTokenView>('CalendarToken').implement({
  description: 'The secret URL of the caller’s calendar feed (iCalendar): approved absences and holidays, and for managers the team’s absences.',
  fields: (t) => ({
    url: t.exposeString('url', { nullable: true, description: 'The whole URL, shown only when it is made: it is the credential' }),
    prefix: t.exposeString('prefix', { description: 'Its first characters, to recognise it' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const createToken = tenantOperation(CalendarTokenArgs, ['create', 'CalendarToken']);
const deleteToken = tenantOperation(CalendarTokenArgs, ['delete', 'CalendarToken']);

builder.mutationFields((t) => ({
  createCalendarToken: t.field({
    type: CalendarTokenObject,
    description: 'Makes the caller’s calendar feed URL, replacing the one before; the URL is answered only now.',
    ...createToken.field(t),
    resolve: createToken.resolve((_input, access, { services }) => services.calendars.createToken(access)),
  }),
  deleteCalendarToken: t.boolean({
    description: 'Revokes the caller’s calendar feed URL; true when there was one.',
    ...deleteToken.field(t),
    resolve: deleteToken.resolve((_input, access, { services }) => services.calendars.removeToken(access)),
  }),
}));
