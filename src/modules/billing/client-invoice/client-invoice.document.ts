/**
 * An issued (or draft) client invoice as the files that leave Tally see it: the PDF, the
 * Factur-X PDF/A-3 and the EN 16931 XML formats are all written from this one shape, so the
 * storage model can change without touching a renderer, and renderers are tested on plain
 * values. Money and quantities are decimal strings (`"205.50"`, `"1.2500"`), never numbers:
 * a renderer prints them as given, it does no arithmetic of its own.
 */
export type TaxCategory = 'S' | 'Z' | 'E' | 'AE' | 'K' | 'G' | 'O';

/** UN/ECE recommendation 20 unit codes we bill in. Time is billed in minutes (MIN) priced per hour. */
export type UnitCode = 'HUR' | 'MIN' | 'DAY' | 'C62';

export interface PostalAddress {
  readonly line1: string;
  readonly line2?: string | null;
  readonly postcode: string;
  readonly city: string;
  /** ISO 3166-1 alpha-2 */
  readonly countryCode: string;
}

/** EN 16931 electronic address (BT-34 / BT-49): an EAS scheme code and the id in it. */
export interface ElectronicAddress {
  readonly scheme: string;
  readonly id: string;
}

/** The seller as it was when the invoice was issued (BG-4, BG-6, BG-16). */
export interface SellerSnapshot {
  readonly legalName: string;
  readonly address: PostalAddress;
  readonly vatId?: string | null;
  readonly taxNumber?: string | null;
  /**
   * BT-30, the seller's legal registration (e.g. `HRB 12345, Amtsgericht Hamburg`): identifies a seller
   * without a VAT id in an e-invoice (BR-CO-26), and the only seller identifier an invoice not subject to
   * VAT (O) may carry. Optional: added with the e-invoice writers.
   */
  readonly registrationId?: string | null;
  /** The ISO 6523 ICD scheme of `registrationId` (e.g. `0208` for a Belgian enterprise number), when it has one. */
  readonly registrationScheme?: string | null;
  readonly email: string;
  readonly phone?: string | null;
  /** BT-41, which XRechnung requires. */
  readonly contactName?: string | null;
  readonly electronicAddress?: ElectronicAddress | null;
  readonly iban?: string | null;
  readonly bic?: string | null;
  readonly bankName?: string | null;
  readonly smallBusiness: boolean;
}

/** The buyer (the client) as it was when the invoice was issued (BG-7). */
export interface BuyerSnapshot {
  readonly name: string;
  readonly address?: PostalAddress | null;
  readonly vatId?: string | null;
  readonly email?: string | null;
  readonly electronicAddress?: ElectronicAddress | null;
  /**
   * BCP 47: the language of the document's files, fixed at issue (the client's, else the billing profile's).
   * Absent on documents issued before languages came: they are written in English, as they were.
   */
  readonly language?: string | null;
}

export interface ClientInvoiceDocumentLine {
  readonly position: number;
  readonly description: string;
  /** Up to 4 decimals, e.g. `"95.0000"` minutes or `"7.5000"` hours; negative only on a rounding line that takes cents back. */
  readonly quantity: string;
  readonly unit: UnitCode;
  /** BT-149: the quantity `unitPrice` is for, `"60"` for minutes at an hourly rate, else `"1"`. */
  readonly baseQuantity: string;
  readonly unitPrice: string;
  /** Always round(quantity x unitPrice / baseQuantity, 2): a reader recomputes it exactly. */
  readonly netAmount: string;
  readonly taxCategory: TaxCategory;
  readonly taxRate: string;
}

/** One (category, rate) row of the tax breakdown (BG-23), after its share of the discount. */
export interface ClientInvoiceDocumentTax {
  readonly category: TaxCategory;
  readonly rate: string;
  /** Sum of the group's line nets minus its share of the document discount. */
  readonly basis: string;
  readonly amount: string;
  readonly exemptionReason?: string | null;
}

/** A document-level allowance (BG-20), one per (category, rate) group the discount was spread over. */
export interface ClientInvoiceDocumentAllowance {
  readonly amount: string;
  readonly reason: string;
  readonly taxCategory: TaxCategory;
  readonly taxRate: string;
}

export interface ClientInvoiceDocument {
  readonly id: string;
  readonly type: 'invoice' | 'credit_note';
  readonly status: 'draft' | 'issued' | 'sent' | 'paid' | 'void';
  /** Null while draft. */
  readonly number: string | null;
  /** The number of the invoice a credit note corrects (BG-3), and its issue date. */
  readonly creditNoteFor?: { readonly number: string; readonly issueDate: string } | null;
  /** ISO 4217 */
  readonly currency: string;
  /** `YYYY-MM-DD`; null while draft unless one was set. */
  readonly issueDate: string | null;
  readonly dueDate: string | null;
  readonly periodFrom: string;
  readonly periodTo: string;
  /** BT-10, e.g. a Leitweg-ID. */
  readonly buyerReference?: string | null;
  readonly notes?: string | null;
  readonly paymentTermsDays: number;
  readonly seller: SellerSnapshot;
  readonly buyer: BuyerSnapshot;
  readonly lines: readonly ClientInvoiceDocumentLine[];
  readonly allowances: readonly ClientInvoiceDocumentAllowance[];
  readonly totals: {
    readonly lineNet: string;
    readonly allowances: string;
    readonly taxBasis: string;
    readonly taxes: readonly ClientInvoiceDocumentTax[];
    readonly tax: string;
    readonly gross: string;
    readonly paid: string;
    readonly due: string;
  };
}
