import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { defineEnum } from '../../../lib/vocabulary.js';
import { CreateHolidayArgs, HolidayArgs, ListHolidaysArgs, type Holiday } from './holiday.service.js';

const holidaySource = defineEnum('HolidaySource', ['public', 'tenant']);

const HolidayObject = builder.objectRef<Holiday>('Holiday').implement({
  description: 'A day off for everyone: a public holiday of the region (date-holidays), or one of the tenant’s own.',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: true, description: 'The tenant’s own holiday’s id; null for a public holiday' }),
    tenantId: t.exposeID('tenantId'),
    date: t.expose('date', { type: 'Date' }),
    name: t.exposeString('name'),
    fraction: t.exposeFloat('fraction', { description: 'The part of the day off: 1, or 0.5 for a half day' }),
    source: t.expose('source', { type: graphqlEnum(holidaySource) }),
    region: t.exposeString('region', { nullable: true, description: 'The date-holidays region of a public holiday (DE-BY)' }),
  }),
});

const listHolidays = tenantOperation(ListHolidaysArgs, ['read', 'Holiday']);
const createHoliday = tenantOperation(CreateHolidayArgs, ['create', 'Holiday']);
const deleteHoliday = tenantOperation(HolidayArgs, ['delete', 'Holiday']);

builder.queryFields((t) => ({
  holidays: t.field({
    type: [HolidayObject],
    description: 'The holidays in effect between two days: the region’s public ones and the tenant’s own, by date.',
    ...listHolidays.field(t),
    resolve: listHolidays.resolve((input, access, { services }) => services.holidays.list(access, input)),
  }),
}));

builder.mutationFields((t) => ({
  createHoliday: t.field({
    type: HolidayObject,
    description: 'Adds a holiday of the tenant’s own (a whole or a half day).',
    ...createHoliday.field(t),
    resolve: createHoliday.resolve((input, access, { services }) => services.holidays.create(access, input.input)),
  }),
  deleteHoliday: t.field({
    type: HolidayObject,
    description: 'Deletes one of the tenant’s own holidays. GraphQL returns the deleted holiday.',
    ...deleteHoliday.field(t),
    resolve: deleteHoliday.resolve((input, access, { services }) => services.holidays.remove(access, input.id)),
  }),
}));
