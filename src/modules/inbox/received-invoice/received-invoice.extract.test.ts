import { describe, expect, it } from 'vitest';
import { extractFields, parseAmount, parseDate } from './received-invoice.extract.js';

describe('invoice field extraction', () => {
  it('reads an English invoice, skipping the VAT rate before the VAT amount', () => {
    const text = [
      'ACME Supplies Ltd',
      'Invoice INV-2026-0042',
      'Date: 2026-11-02',
      'Due: 2026-12-02',
      'Net 1,037.44 EUR',
      'VAT 19% 197.12 EUR',
      'Total 1,234.56 EUR',
    ].join('\n');
    expect(extractFields(text)).toEqual({
      vendorName: 'ACME Supplies Ltd',
      number: 'INV-2026-0042',
      issueDate: '2026-11-02',
      dueDate: '2026-12-02',
      currency: 'EUR',
      netAmount: '1037.44',
      taxAmount: '197.12',
      totalAmount: '1234.56',
    });
  });

  it('reads a German one with day-first dates and a currency sign', () => {
    const text = [
      'Muster GmbH',
      'Rechnung Nr. R-77/2026',
      'Rechnungsdatum: 02.11.2026',
      'Zahlbar bis 16.11.2026',
      'Nettobetrag € 1.000,00',
      'MwSt 19 % € 190,00',
      'Gesamtbetrag € 1.190,00',
    ].join('\n');
    expect(extractFields(text)).toMatchObject({
      number: 'R-77/2026',
      issueDate: '2026-11-02',
      dueDate: '2026-11-16',
      currency: 'EUR',
      netAmount: '1000.00',
      taxAmount: '190.00',
      totalAmount: '1190.00',
    });
  });

  it('leaves out what it cannot find or what is not real, rather than guessing', () => {
    expect(extractFields('Invoice\nDate: 2026-02-30\nTotal: lots')).toEqual({});
    expect(parseDate('31.04.2026')).toBeUndefined();
    expect(parseAmount('1.234')).toBe('1234.00');
    expect(parseAmount("1'234.5")).toBe('1234.50');
    expect(parseAmount('12.34.56')).toBe('1234.56');
    expect(parseAmount('1234567890123')).toBeUndefined();
  });
});
