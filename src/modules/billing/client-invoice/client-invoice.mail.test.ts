/**
 * A mail's subject and default text are in the document's language, as its PDF is: the language frozen in
 * the buyer snapshot at issue (the client's, else the billing profile's), English for documents issued
 * before languages came. test/client-invoice-mail.test.ts mails a German invoice through a real SMTP server.
 */
import { describe, expect, it } from 'vitest';
import type { ClientInvoiceDocument } from './client-invoice.document.js';
import { mailText, reminderText } from './client-invoice.mail.js';

/** What the texts read of a document: its kind, number, seller and language. */
const documentOf = (type: ClientInvoiceDocument['type'], language: string | null, number: string | null = 'RE-2026-0007') =>
  ({ type, number, seller: { legalName: 'Muster GmbH' }, buyer: { name: 'Client', language } }) as unknown as ClientInvoiceDocument;

describe('the subject and default text of a mail', () => {
  it('are in English for an English document, and for one issued before languages came, as they were', () => {
    for (const language of ['en', 'en-GB', null]) {
      expect(mailText(documentOf('invoice', language), null)).toEqual({
        subject: 'Invoice RE-2026-0007 from Muster GmbH',
        text: 'Please find attached invoice RE-2026-0007 from Muster GmbH.',
      });
    }
    expect(mailText(documentOf('credit_note', null), null).subject).toBe('Credit note RE-2026-0007 from Muster GmbH');
    expect(reminderText(documentOf('invoice', null), 2, null)).toEqual({
      subject: 'Payment reminder 2: invoice RE-2026-0007 from Muster GmbH',
      text: 'Please find attached payment reminder 2 for invoice RE-2026-0007 from Muster GmbH.',
    });
  });

  it('are in German and in French for documents in those languages, regional tags included', () => {
    expect(mailText(documentOf('invoice', 'de-AT'), null)).toEqual({
      subject: 'Rechnung RE-2026-0007 von Muster GmbH',
      text: 'Anbei erhalten Sie die Rechnung RE-2026-0007 von Muster GmbH.',
    });
    expect(mailText(documentOf('credit_note', 'de'), null).text).toBe('Anbei erhalten Sie die Gutschrift RE-2026-0007 von Muster GmbH.');
    expect(reminderText(documentOf('invoice', 'de'), 1, null).subject).toBe('1. Mahnung: Rechnung RE-2026-0007 von Muster GmbH');
    expect(mailText(documentOf('invoice', 'fr-CH'), null).subject).toBe('Facture RE-2026-0007 de Muster GmbH');
    expect(mailText(documentOf('credit_note', 'fr'), null).text).toBe("Veuillez trouver ci-joint l'avoir RE-2026-0007 de Muster GmbH.");
    expect(reminderText(documentOf('invoice', 'fr'), 3, null).subject).toBe('Relance n° 3 : facture RE-2026-0007 de Muster GmbH');
  });

  it("keep the sender's own message as the text, and the subject whole without a number", () => {
    expect(mailText(documentOf('invoice', 'de'), 'Vielen Dank!')).toEqual({ subject: 'Rechnung RE-2026-0007 von Muster GmbH', text: 'Vielen Dank!' });
    expect(mailText(documentOf('invoice', 'en', null), null).subject).toBe('Invoice from Muster GmbH');
  });
});
