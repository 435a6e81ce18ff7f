/**
 * A second reader of invoice lines: every line of a CII or UBL e-invoice, read with saxes (a real XML parser,
 * not the writer's library), and of an invoice PDF, read from pdftotext's layout; each line's net recomputed
 * exactly, in integers, as round(quantity x price / base quantity, 2) half up (EN 16931 BT-131 = BT-129 x
 * BT-146 / BT-149), without a tolerance.
 */
import { SaxesParser } from 'saxes';

export interface ReadLine {
  quantity: string;
  price: string;
  /** `1` where the file names none. */
  baseQuantity: string;
  net: string;
}

/** A decimal string as an integer and its scale: `-1.50` is [-150n, 2]. */
function scaled(value: string): [bigint, number] {
  const text = value.trim().replace(/^\+/, '');
  if (!/^-?\d+(\.\d+)?$/.test(text)) throw new Error(`not a decimal: ${value}`);
  const [whole = '0', fraction = ''] = text.replace('-', '').split('.');
  const magnitude = BigInt(`${whole}${fraction}`);
  return [text.startsWith('-') ? -magnitude : magnitude, fraction.length];
}

/** round(quantity x price / base, 2), half up (away from zero), in cents. */
export function expectedNetCents(quantity: string, price: string, baseQuantity: string): bigint {
  const [q, qs] = scaled(quantity);
  const [p, ps] = scaled(price);
  const [b, bs] = scaled(baseQuantity);
  const numerator = q * p * 100n * 10n ** BigInt(bs);
  const denominator = 10n ** BigInt(qs + ps) * b;
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const rounded = (n * 2n + d) / (d * 2n);
  return negative ? -rounded : rounded;
}

/** An amount in cents, exactly (a file may write more decimals than two; they must be zeros then). */
export function centsOf(amount: string): bigint {
  const [value, scale] = scaled(amount);
  if (scale <= 2) return value * 10n ** BigInt(2 - scale);
  const divisor = 10n ** BigInt(scale - 2);
  if (value % divisor !== 0n) throw new Error(`more than cents: ${amount}`);
  return value / divisor;
}

/** The lines that break the rule: each with what the file says and what it should. */
export function inexactLines(lines: readonly ReadLine[]): string[] {
  return lines.flatMap((line, index) => {
    const expected = expectedNetCents(line.quantity, line.price, line.baseQuantity);
    return centsOf(line.net) === expected
      ? []
      : [`line ${index + 1}: ${line.quantity} x ${line.price} / ${line.baseQuantity} = ${expected} cents, written ${line.net}`];
  });
}

/** The lines of a CII or UBL invoice or credit note, the sum of line nets it states (BT-106), and its line-level allowances and charges. */
export function readXmlLines(xml: string): { lines: ReadLine[]; lineTotal: string; lineAllowancesAndCharges: number } {
  const parser = new SaxesParser({ xmlns: true });
  const path: string[] = [];
  const lines: ReadLine[] = [];
  let current: Partial<ReadLine> | undefined;
  let text = '';
  let lineTotal = '';
  let lineAllowancesAndCharges = 0;
  const parent = () => path[path.length - 2];
  parser.on('opentag', (tag) => {
    path.push(tag.local);
    text = '';
    if (['IncludedSupplyChainTradeLineItem', 'InvoiceLine', 'CreditNoteLine'].includes(tag.local)) current = {};
    const inLine = current !== undefined;
    if (inLine && (tag.local === 'SpecifiedTradeAllowanceCharge' || (tag.local === 'AllowanceCharge' && parent() !== 'Price'))) lineAllowancesAndCharges += 1;
  });
  parser.on('text', (chunk) => {
    text += chunk;
  });
  parser.on('closetag', (tag) => {
    const name = tag.local;
    const up = parent();
    if (current) {
      if (name === 'BilledQuantity' || ((name === 'InvoicedQuantity' || name === 'CreditedQuantity') && (up === 'InvoiceLine' || up === 'CreditNoteLine')))
        current.quantity = text;
      if (name === 'ChargeAmount' && up === 'NetPriceProductTradePrice') current.price = text;
      if (name === 'BasisQuantity' && up === 'NetPriceProductTradePrice') current.baseQuantity = text;
      if (name === 'PriceAmount' && up === 'Price') current.price = text;
      if (name === 'BaseQuantity' && up === 'Price') current.baseQuantity = text;
      if (name === 'LineTotalAmount' && up === 'SpecifiedTradeSettlementLineMonetarySummation') current.net = text;
      if (name === 'LineExtensionAmount' && (up === 'InvoiceLine' || up === 'CreditNoteLine')) current.net = text;
      if (['IncludedSupplyChainTradeLineItem', 'InvoiceLine', 'CreditNoteLine'].includes(name)) {
        const { quantity, price, net } = current;
        if (quantity === undefined || price === undefined || net === undefined) throw new Error(`line ${lines.length + 1} lacks a quantity, price or net`);
        lines.push({ quantity, price, net, baseQuantity: current.baseQuantity ?? '1' });
        current = undefined;
      }
    } else if (
      (name === 'LineTotalAmount' && up === 'SpecifiedTradeSettlementHeaderMonetarySummation') ||
      (name === 'LineExtensionAmount' && up === 'LegalMonetaryTotal')
    ) {
      lineTotal = text;
    }
    path.pop();
  });
  parser.write(xml).close();
  return { lines, lineTotal, lineAllowancesAndCharges };
}

/**
 * The lines of an invoice PDF as pdftotext's layout prints them: position, description, quantity (h:mm for time,
 * a decimal otherwise), unit, unit price (per hour for time), VAT, amount. Time is read back into hours as a
 * fraction: `1:35` is 95/60.
 */
export function readPdfLines(text: string): (ReadLine & { position: number })[] {
  const number = (value: string) => value.replaceAll(',', '').replace('−', '-');
  const row = /^\s*(\d+)\s+.*?\s(−?[\d,]+(?::\d\d|\.\d+))\s+(h|days?|units?)\s+([\d,]+\.\d+)\s+(?:[\d.]+ ?%|[A-Z]{1,2})\s+(−?[\d,]+\.\d+)\s*$/;
  return text.split('\n').flatMap((line) => {
    const match = row.exec(line);
    if (!match) return [];
    const [, position, quantity, , price, net] = match as unknown as [string, string, string, string, string, string];
    const clock = /^(−?)([\d,]+):(\d\d)$/.exec(quantity);
    const minutes = clock ? `${clock[1] === '−' ? '-' : ''}${Number(number(clock[2] as string)) * 60 + Number(clock[3])}` : undefined;
    return [
      {
        position: Number(position),
        quantity: minutes ?? number(quantity),
        baseQuantity: minutes === undefined ? '1' : '60',
        price: number(price),
        net: number(net),
      },
    ];
  });
}
