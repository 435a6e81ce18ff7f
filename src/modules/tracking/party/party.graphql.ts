/**
 * A party's postal and electronic address as GraphQL shows them: on a client
 * (the buyer), on the billing profile (the seller), and on an invoice's
 * seller and buyer as issued.
 */
import { builder } from '../../../graphql/builder.js';
import type { Address, ElectronicAddress } from './party.fields.js';

/** A postal address, of a seller or a buyer. */
export const AddressObject = builder.objectRef<Address>('Address').implement({
  description: 'A postal address.',
  fields: (t) => ({
    line1: t.exposeString('line1', { description: 'Street and number' }),
    line2: t.string({ nullable: true, resolve: (address) => address.line2 ?? null }),
    postcode: t.exposeString('postcode'),
    city: t.exposeString('city'),
    countryCode: t.exposeString('countryCode', { description: 'ISO 3166-1 alpha-2' }),
  }),
});

/** Where e-invoices go. */
export const ElectronicAddressObject = builder.objectRef<ElectronicAddress>('ElectronicAddress').implement({
  description: 'An electronic address for e-invoices: an EAS scheme and an id in it.',
  fields: (t) => ({
    scheme: t.exposeString('scheme', { description: 'EAS code, e.g. 0088, 0208, 9930, EM (Peppol takes the numeric ones)' }),
    id: t.exposeString('id'),
  }),
});
