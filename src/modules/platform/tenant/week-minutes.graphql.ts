import { builder } from '../../../graphql/builder.js';
import type { WeekMinutes } from '../../../lib/week.js';

/** A week of expected minutes: the tenant's default schedule and each work schedule show it. */
export const WeekMinutesObject = builder.objectRef<WeekMinutes>('WeekMinutes').implement({
  description: 'Expected minutes per weekday.',
  fields: (t) => ({
    mon: t.exposeInt('mon', { description: 'Expected minutes on Mondays' }),
    tue: t.exposeInt('tue', { description: 'Expected minutes on Tuesdays' }),
    wed: t.exposeInt('wed', { description: 'Expected minutes on Wednesdays' }),
    thu: t.exposeInt('thu', { description: 'Expected minutes on Thursdays' }),
    fri: t.exposeInt('fri', { description: 'Expected minutes on Fridays' }),
    sat: t.exposeInt('sat', { description: 'Expected minutes on Saturdays' }),
    sun: t.exposeInt('sun', { description: 'Expected minutes on Sundays' }),
  }),
});
