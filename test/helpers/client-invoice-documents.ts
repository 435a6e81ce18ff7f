/**
 * Client invoice documents built in tests, with totals worked out here the way EN 16931 computes them
 * (in cents, each (category, rate) group's tax rounded half up on its net after its share of the
 * discount), so that the renderers are tested on documents whose sums a validator accepts. Billing's own
 * rules produce the real ones; these are independent of them on purpose.
 */
import type {
  BuyerSnapshot,
  ClientInvoiceDocument,
  ClientInvoiceDocumentAllowance,
  ClientInvoiceDocumentLine,
  ClientInvoiceDocumentTax,
  SellerSnapshot,
  TaxCategory,
  UnitCode,
} from '../../src/modules/billing/client-invoice/client-invoice.document.js';

/** A line as a test writes it: net in cents is quantity times price over the base quantity (60 for MIN) unless given. */
export interface LineInput {
  description: string;
  quantity: string;
  unit?: UnitCode;
  unitPrice: string;
  netAmount?: string;
  taxCategory?: TaxCategory;
  taxRate?: string;
}

const cents = (amount: string): bigint => {
  const [whole = '0', fraction = ''] = amount.replace('-', '').split('.');
  const value = BigInt(whole) * 100n + BigInt(fraction.padEnd(2, '0').slice(0, 2));
  return amount.startsWith('-') ? -value : value;
};
const money = (value: bigint): string => {
  const negative = value < 0n;
  const absolute = negative ? -value : value;
  return `${negative ? '-' : ''}${absolute / 100n}.${String(absolute % 100n).padStart(2, '0')}`;
};
/** `numerator / denominator` rounded half up (both positive). */
const divideHalfUp = (numerator: bigint, denominator: bigint): bigint => (numerator * 2n + denominator) / (denominator * 2n);

/** quantity (4 decimals) x price (2 decimals) / base quantity, in cents, rounded half up (away from zero). */
function lineNetCents(quantity: string, unitPrice: string, baseQuantity: number): bigint {
  const negative = quantity.startsWith('-');
  const [whole = '0', fraction = ''] = quantity.replace('-', '').split('.');
  const quantityTenThousandths = BigInt(whole) * 10_000n + BigInt(fraction.padEnd(4, '0').slice(0, 4));
  const net = divideHalfUp(quantityTenThousandths * cents(unitPrice), 10_000n * BigInt(baseQuantity));
  return negative ? -net : net;
}

export const sellerDe: SellerSnapshot = {
  legalName: 'Nordlicht Software GmbH',
  address: { line1: 'Hafenstraße 12', line2: '3. OG', postcode: '20457', city: 'Hamburg', countryCode: 'DE' },
  vatId: 'DE123456789',
  taxNumber: '22/815/08154',
  email: 'billing@nordlicht.example',
  phone: '+49 40 1234567',
  contactName: 'Jana Berger',
  electronicAddress: { scheme: 'EM', id: 'invoices@nordlicht.example' },
  iban: 'DE89370400440532013000',
  bic: 'COBADEFFXXX',
  bankName: 'Commerzbank',
  smallBusiness: false,
};

export const buyerDe: BuyerSnapshot = {
  name: 'Hanse Logistik AG',
  address: { line1: 'Am Sandtorkai 5', postcode: '20457', city: 'Hamburg', countryCode: 'DE' },
  vatId: 'DE987654321',
  email: 'ap@hanse-logistik.example',
  electronicAddress: { scheme: 'EM', id: 'einvoice@hanse-logistik.example' },
};

export interface DocumentInput {
  lines: readonly LineInput[];
  discount?: { percent?: string; amount?: string; reason: string };
  exemptionReasons?: Partial<Record<TaxCategory, string>>;
  paid?: string;
  overrides?: Partial<ClientInvoiceDocument>;
}

/** A document from lines and a discount, with its allowances, tax breakdown and totals computed. */
export function documentOf(input: DocumentInput): ClientInvoiceDocument {
  const lines: ClientInvoiceDocumentLine[] = input.lines.map((line, index) => ({
    position: index + 1,
    description: line.description,
    quantity: line.quantity,
    unit: line.unit ?? 'HUR',
    baseQuantity: line.unit === 'MIN' ? '60' : '1',
    unitPrice: line.unitPrice,
    netAmount: line.netAmount ?? money(lineNetCents(line.quantity, line.unitPrice, line.unit === 'MIN' ? 60 : 1)),
    taxCategory: line.taxCategory ?? 'S',
    taxRate: line.taxRate ?? (line.taxCategory === undefined || line.taxCategory === 'S' ? '19.00' : '0.00'),
  }));
  const groups = new Map<string, { category: TaxCategory; rate: string; net: bigint }>();
  for (const line of lines) {
    const key = `${line.taxCategory}|${line.taxRate}`;
    const group = groups.get(key) ?? { category: line.taxCategory, rate: line.taxRate, net: 0n };
    group.net += cents(line.netAmount);
    groups.set(key, group);
  }
  const lineNet = [...groups.values()].reduce((sum, group) => sum + group.net, 0n);
  const discount = input.discount;
  const discountTotal = discount
    ? discount.amount !== undefined
      ? cents(discount.amount)
      : divideHalfUp(lineNet * cents(discount.percent ?? '0'), 10_000n)
    : 0n;
  // Spread over the groups in proportion to their nets, the cents left over to the largest remainders.
  const shares = [...groups.values()].map((group) => {
    const exact = discountTotal * group.net;
    return { group, share: lineNet === 0n ? 0n : exact / lineNet, remainder: lineNet === 0n ? 0n : exact % lineNet };
  });
  let left = discountTotal - shares.reduce((sum, share) => sum + share.share, 0n);
  for (const share of [...shares].sort((a, b) => (b.remainder > a.remainder ? 1 : b.remainder < a.remainder ? -1 : 0))) {
    if (left === 0n) break;
    share.share += 1n;
    left -= 1n;
  }
  const allowances: ClientInvoiceDocumentAllowance[] = discount
    ? shares
        .filter((share) => share.share !== 0n)
        .map((share) => ({ amount: money(share.share), reason: discount.reason, taxCategory: share.group.category, taxRate: share.group.rate }))
    : [];
  const taxes: ClientInvoiceDocumentTax[] = shares.map(({ group, share }) => {
    const basis = group.net - share;
    const rateHundredths = cents(group.rate);
    return {
      category: group.category,
      rate: group.rate,
      basis: money(basis),
      amount: money(divideHalfUp(basis * rateHundredths, 10_000n)),
      exemptionReason: group.category === 'S' || group.category === 'Z' ? null : (input.exemptionReasons?.[group.category] ?? null),
    };
  });
  const taxBasis = lineNet - discountTotal;
  const tax = taxes.reduce((sum, row) => sum + cents(row.amount), 0n);
  const gross = taxBasis + tax;
  const paid = cents(input.paid ?? '0.00');
  return {
    id: '0190a6f0-0000-7000-8000-000000000001',
    type: 'invoice',
    status: 'issued',
    number: '2026-0042',
    creditNoteFor: null,
    currency: 'EUR',
    issueDate: '2026-11-02',
    dueDate: '2026-11-16',
    periodFrom: '2026-10-01',
    periodTo: '2026-10-31',
    buyerReference: null,
    notes: 'Thank you for your business.',
    paymentTermsDays: 14,
    seller: sellerDe,
    buyer: buyerDe,
    lines,
    allowances,
    totals: {
      lineNet: money(lineNet),
      allowances: money(discountTotal),
      taxBasis: money(taxBasis),
      taxes,
      tax: money(tax),
      gross: money(gross),
      paid: money(paid),
      due: money(gross - paid),
    },
    ...input.overrides,
  };
}

/** Two projects at two hourly rates (19 %), a fixed fee at 7 %, and a 10 % discount spread over both rates. */
export const twoRateInvoice: ClientInvoiceDocument = documentOf({
  lines: [
    { description: 'Website relaunch: development', quantity: '2550.0000', unit: 'MIN', unitPrice: '95.00' },
    { description: 'Website relaunch: design review', quantity: '375.0000', unit: 'MIN', unitPrice: '120.00' },
    { description: 'Printed style guide (fixed fee)', quantity: '1.0000', unit: 'C62', unitPrice: '480.00', taxRate: '7.00' },
  ],
  discount: { percent: '10.00', reason: 'Framework agreement discount' },
  overrides: {
    buyerReference: 'PO-2026-118',
    notes: 'Thank you for your business.\nPlease quote the invoice number with your payment.',
  },
});

/** The credit note that voids `twoRateInvoice`: its own number, the same lines, and the invoice it corrects (BG-3). */
export const creditNote: ClientInvoiceDocument = {
  ...twoRateInvoice,
  id: '0190a6f0-0000-7000-8000-000000000002',
  type: 'credit_note',
  number: '2026-0043',
  issueDate: '2026-11-05',
  dueDate: '2026-11-05',
  creditNoteFor: { number: '2026-0042', issueDate: '2026-11-02' },
  notes: 'This credit note cancels invoice 2026-0042 in full.',
};

/** A client in France with its VAT id: reverse charge (AE), no VAT charged. */
export const reverseChargeInvoice: ClientInvoiceDocument = documentOf({
  lines: [
    { description: 'API integration: engineering', quantity: '30.0000', unitPrice: '110.00', taxCategory: 'AE' },
    { description: 'API integration: project management', quantity: '4.5000', unitPrice: '90.00', taxCategory: 'AE' },
  ],
  exemptionReasons: { AE: 'Reverse charge: VAT to be paid by the recipient (Article 196 VAT Directive)' },
  overrides: {
    number: '2026-0044',
    buyerReference: 'BC-7731',
    buyer: {
      name: 'Atelier Lumière SARL',
      address: { line1: '18 rue de la République', postcode: '69002', city: 'Lyon', countryCode: 'FR' },
      vatId: 'FR40303265045',
      email: 'compta@atelier-lumiere.example',
      electronicAddress: { scheme: 'EM', id: 'factures@atelier-lumiere.example' },
    },
  },
});

/**
 * A small business (§ 19 UStG): every line exempt (E) with the reason. It has a VAT id besides its tax
 * number: EN 16931 (BR-CO-26) needs a seller VAT id or identifier, which a tax number is not.
 */
export const smallBusinessInvoice: ClientInvoiceDocument = documentOf({
  lines: [
    { description: 'Bookkeeping support', quantity: '12.0000', unitPrice: '45.00', taxCategory: 'E' },
    { description: 'Travel to the client (flat)', quantity: '1.0000', unit: 'C62', unitPrice: '60.00', taxCategory: 'E' },
  ],
  exemptionReasons: { E: 'Kleinunternehmer gemäß § 19 UStG: no VAT is charged (small business)' },
  paid: '100.00',
  overrides: {
    number: 'KU-2026-007',
    seller: {
      legalName: 'Petra Hoffmann Bürodienste',
      address: { line1: 'Lindenweg 3', postcode: '79098', city: 'Freiburg im Breisgau', countryCode: 'DE' },
      vatId: 'DE811907980',
      taxNumber: '06/123/45678',
      email: 'petra@hoffmann-buero.example',
      phone: '+49 761 555 0199',
      contactName: 'Petra Hoffmann',
      electronicAddress: { scheme: 'EM', id: 'petra@hoffmann-buero.example' },
      iban: 'DE02120300000000202051',
      bic: null,
      bankName: null,
      smallBusiness: true,
    },
    buyerReference: 'Hanse-Logistik-KST-4410',
    notes: null,
  },
});

/** A German public-sector client: a Leitweg-ID as buyer reference, the seller's contact and both electronic addresses. */
export const xrechnungInvoice: ClientInvoiceDocument = documentOf({
  lines: [
    { description: 'Specialist procedure maintenance, October', quantity: '16.0000', unitPrice: '98.50' },
    { description: 'On-site workshop', quantity: '1.0000', unit: 'DAY', unitPrice: '950.00' },
  ],
  overrides: {
    number: '2026-0045',
    buyerReference: '04011000-12345-34',
    buyer: {
      name: 'Freie und Hansestadt Hamburg, Amt für IT',
      address: { line1: 'Steckelhörn 12', postcode: '20457', city: 'Hamburg', countryCode: 'DE' },
      vatId: null,
      email: 'rechnung@it.hamburg.example',
      electronicAddress: { scheme: '0204', id: '04011000-12345-34' },
    },
  },
});

/** Goods to a business in Austria: an intra-community supply (K), delivered to the buyer's country. */
export const intraCommunityInvoice: ClientInvoiceDocument = documentOf({
  lines: [{ description: 'Preconfigured time clock terminals', quantity: '3.0000', unit: 'C62', unitPrice: '640.00', taxCategory: 'K' }],
  exemptionReasons: { K: 'Intra-community supply, exempt under Article 138 VAT Directive' },
  overrides: {
    number: '2026-0046',
    buyerReference: 'PO-AT-5512',
    buyer: {
      name: 'Alpenblick Hotels GmbH',
      address: { line1: 'Maria-Theresien-Straße 9', postcode: '6020', city: 'Innsbruck', countryCode: 'AT' },
      vatId: 'ATU13585627',
      email: 'buchhaltung@alpenblick.example',
      electronicAddress: { scheme: 'EM', id: 'rechnungen@alpenblick.example' },
    },
  },
});

/**
 * Work not subject to VAT (O): no VAT id may appear (BR-O-02), so the seller is identified by its legal
 * registration (BT-30).
 */
export const notSubjectInvoice: ClientInvoiceDocument = documentOf({
  lines: [{ description: 'Expert opinion for court proceedings (outside the scope of VAT)', quantity: '8.0000', unitPrice: '150.00', taxCategory: 'O' }],
  exemptionReasons: { O: 'Not subject to VAT' },
  overrides: {
    number: '2026-0047',
    buyerReference: 'AZ 3 O 117/26',
    seller: { ...sellerDe, registrationId: 'HRB 123456, Amtsgericht Hamburg' },
  },
});

/**
 * Time as billing writes it, with the minutes and rates whose nets do not come out even: 95 minutes at 110.00
 * (174.1666...), 1 minute at 0.01 (0.0001666...), 7 minutes at 33.33 (3.8885), a large group, and the
 * rounding line of entries that, each rounded to the cent, come to cents less than the lines of their time.
 */
export const awkwardMinutesInvoice: ClientInvoiceDocument = documentOf({
  lines: [
    { description: 'Code review', quantity: '95.0000', unit: 'MIN', unitPrice: '110.00' },
    { description: 'Ticket triage', quantity: '1.0000', unit: 'MIN', unitPrice: '0.01' },
    { description: 'Support call', quantity: '7.0000', unit: 'MIN', unitPrice: '33.33' },
    { description: 'Operations, the whole year', quantity: '100003.0000', unit: 'MIN', unitPrice: '97.35' },
    { description: 'Rounding to the 416 entries’ own amounts, each rounded to the cent', quantity: '-1.0000', unit: 'C62', unitPrice: '0.02' },
    { description: 'Workshop day', quantity: '1.0000', unit: 'DAY', unitPrice: '950.00' },
  ],
  overrides: { number: '2026-0048', buyerReference: 'PO-2026-131' },
});

/** `count` lines over two rates, each with its own description: a multi-page PDF and the XML bench. */
export function manyLineInvoice(count: number): ClientInvoiceDocument {
  return documentOf({
    lines: Array.from({ length: count }, (_, index) => ({
      description: `${index % 7 === 0 ? 'Consulting' : 'Development'} on ${['backend', 'mobile app', 'data import', 'reporting'][index % 4]}, week ${(index % 52) + 1}`,
      quantity: `${1 + (index % 9)}.${String((index * 2500) % 10_000).padStart(4, '0')}`,
      unitPrice: index % 5 === 0 ? '120.00' : '95.00',
      taxRate: index % 11 === 0 ? '7.00' : '19.00',
    })),
    discount: { amount: '250.00', reason: 'Volume discount' },
    overrides: { number: '2026-0100', buyerReference: '04011000-12345-34' },
  });
}

/** A draft: no number, no issue date. */
export const draftInvoice: ClientInvoiceDocument = { ...twoRateInvoice, status: 'draft', number: null, issueDate: null, dueDate: null };

/** Every issued fixture by name, for the validation runs. */
export const issuedFixtures: Record<string, ClientInvoiceDocument> = {
  'awkward-minutes': awkwardMinutesInvoice,
  'two-rate-discount': twoRateInvoice,
  'credit-note': creditNote,
  'reverse-charge': reverseChargeInvoice,
  'small-business': smallBusinessInvoice,
  xrechnung: xrechnungInvoice,
  'intra-community': intraCommunityInvoice,
  'not-subject-to-vat': notSubjectInvoice,
};
