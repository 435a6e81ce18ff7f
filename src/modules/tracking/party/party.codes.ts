/**
 * The identifier schemes e-invoices name, as the official rules list them (no npm package carries them):
 * copied from the CEN/TC 434 validation artefacts 1.3.16 (BR-CL-25 for electronic addresses, BR-CL-10/11
 * for ISO 6523 ICD identifiers) and from OpenPEPPOL's BIS Billing 3.0 Schematron 3.0.19 (PEPPOL-EN16931-CL008,
 * the participant identifier schemes), the versions `../shared/validation` runs. A new release of those
 * rules is the only reason to change a list here.
 */

/** The Peppol participant identifier schemes (PEPPOL-EN16931-CL008): an electronic address on the Peppol network has one. */
export const peppolSchemes: ReadonlySet<string> = new Set(
  (
    '0002 0007 0009 0037 0060 0088 0096 0097 0106 0130 0135 0142 0151 0177 0183 0184 0188 0190 0191 0192 0193 0195 0196 0198 ' +
    '0199 0200 0201 0202 0204 0208 0209 0210 0211 0212 0213 0215 0216 0218 0221 0230 0235 9910 9913 9914 9915 9918 9919 9920 ' +
    '9922 9923 9924 9925 9926 9927 9928 9929 9930 9931 9932 9933 9934 9935 9936 9937 9938 9939 9940 9941 9942 9943 9944 9945 ' +
    '9946 9947 9948 9949 9950 9951 9952 9953 9957 9959 0147 0154 0158 0170 0194 0203 0205 0217 0225 0240'
  ).split(' '),
);

/** The CEF Electronic Address Scheme (EAS) code list (BR-CL-25): the Peppol schemes, a few more, and EM (e-mail), AN, AQ, AS, AU. */
export const easSchemes: ReadonlySet<string> = new Set([...peppolSchemes, ...'0219 0220 0242 0244 0245 0246 0248 AN AQ AS AU EM'.split(' ')]);

/** ISO 6523 ICD codes (BR-CL-10, BR-CL-11): 0002 to 0248 except those never assigned. */
export const icdSchemes: ReadonlySet<string> = new Set(
  Array.from({ length: 247 }, (_, index) => String(index + 2).padStart(4, '0')).filter((code) => !['0092', '0103', '0181', '0182'].includes(code)),
);

/**
 * What a client can be set to receive (`einvoiceFormat`, CONTRACT.md section 11): none (a PDF), an XML format,
 * or the Factur-X PDF. Issuing checks what it needs (client-invoice/einvoice/requirements.ts).
 */
export const clientEInvoiceFormats = ['none', 'cii', 'ubl', 'xrechnung-cii', 'xrechnung-ubl', 'peppol', 'facturx'] as const;
export type ClientEInvoiceFormat = (typeof clientEInvoiceFormats)[number];
