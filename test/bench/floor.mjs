// The floor of `npm run bench`: the same work as Tally's routes under test,
// written by hand on node:http and pg, as fast as plain code gets. Tally's
// figures are reported as ratios to this server's, measured in the same run
// on the same database. Plain JavaScript, run as its own process.
//
//   GET  /tenants/{tenantId}/notes?limit=&offset=   the key check, then one page of notes, newest first
//   GET  /tenants/{tenantId}/notes/{noteId}         the key check, then one note
//   POST /tenants/{tenantId}/notes                  the key check, then the note and its event in one transaction
//   GET  /tenants/{tenantId}/client-invoices?limit=&offset=
//                                                   the key check, then Tally's two statements of the list (the page
//                                                   with its payments, last send and credit note; the page's lines,
//                                                   prepared), printed as Tally prints them: the same bytes
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';

// Instants are timestamptz (`2026-11-25 14:40:43.729+00`), read by Date's own ISO parser, as the floor read
// them before they had a zone: pg's parser (regular expressions) costs several times as much.
pg.types.setTypeParser(1184, (text) => new Date(text.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00')));

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) });

/** UUIDv7: a millisecond timestamp, then randomness (RFC 9562). */
function uuidv7() {
  const bytes = randomBytes(16);
  const now = BigInt(Date.now());
  for (let index = 0; index < 6; index += 1) bytes[index] = Number((now >> BigInt(8 * (5 - index))) & 0xffn);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function send(response, status, body) {
  const text = body === undefined ? '' : JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

/** The key, looked up by its SHA-256 with its tenant in one statement. */
async function admitted(request, tenantId) {
  const header = request.headers.authorization ?? '';
  if (!header.startsWith('Bearer svc_')) return false;
  const hash = createHash('sha256').update(header.slice('Bearer '.length)).digest('hex');
  const { rows } = await pool.query(
    'SELECT k."tenantId", k."revokedAt", k."expiresAt", t.status FROM api_keys k JOIN tenants t ON t.id = k."tenantId" WHERE k."keyHash" = $1',
    [hash],
  );
  const key = rows[0];
  return key !== undefined && key.revokedAt === null && key.expiresAt > new Date() && key.tenantId === tenantId && key.status === 'active';
}

const columns = 'id, "tenantId", "tenantUserId", content, "createdAt", "updatedAt"';

/** Decimals of a currency (ISO 4217, from Intl), kept per currency. */
const minorUnits = new Map();
function decimalsOf(currency) {
  let digits = minorUnits.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits;
    minorUnits.set(currency, digits);
  }
  return digits;
}

/** Decimal text (`trim_scale`d by the statement) at `digits` decimals; the stored amounts never have more. */
function fixed(text, digits) {
  const point = text.indexOf('.');
  const decimals = point === -1 ? 0 : text.length - point - 1;
  if (decimals === digits) return text;
  if (decimals < digits) return `${text}${point === -1 ? '.' : ''}${'0'.repeat(digits - decimals)}`;
  return Number(text).toFixed(digits);
}
const money = (text, currency) => fixed(text, decimalsOf(currency));
const optionalMoney = (text, currency) => (text === null ? null : money(text, currency));
const percent = (text) => fixed(text, 2);

// The client-invoices list's two statements, as Tally's `listClientInvoices` makes them for a key's page (days and
// instants as the text the answer prints, decimals without trailing zeros).
const day = (column) => `to_char(${column}, 'YYYY-MM-DD')`;
const instant = (column) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const decimal = (column) => `trim_scale(${column})::text`;
const invoicePage = `SELECT i.id, i."tenantId", i."clientId", i."clientName", i.type, i."creditNoteForId", i.status, i.number, i."numberYear",
       i."numberSequence", i.currency, ${['issueDate', 'dueDate', 'periodFrom', 'periodTo'].map((c) => `${day(`i."${c}"`)} AS "${c}"`).join(', ')},
       i."groupBy", i."buyerReference", i.notes, i.seller, i.buyer,
       ${['discountPercent', 'discountAmount', 'lineNet', 'allowances', 'taxBasis', 'tax', 'gross', 'paid', 'due'].map((c) => `${decimal(`i."${c}"`)} AS "${c}"`).join(', ')},
       i."discountReason", i.taxes, ${['issuedAt', 'sentAt'].map((c) => `${instant(`i."${c}"`)} AS "${c}"`).join(', ')}, i."sentTo",
       ${['paidAt', 'voidedAt', 'createdAt', 'updatedAt'].map((c) => `${instant(`i."${c}"`)} AS "${c}"`).join(', ')},
       coalesce((SELECT json_agg(json_build_object('paidAt', ${day('p."paidAt"')}, 'amount', ${decimal('p.amount')}) ORDER BY p."paidAt", p."createdAt")
                   FROM client_invoice_payments p WHERE p."clientInvoiceId" = i.id), '[]') AS payments,
       (SELECT json_build_object('attach', s.attach, 'attempts', s.attempts, 'cc', s.cc, 'createdAt', ${instant('s."createdAt"')},
               'deliveredAt', ${instant('s."deliveredAt"')}, 'id', s.id, 'lastError', s."lastError", 'messageId', s."messageId", 'status', s.status,
               'to', s."to")
          FROM client_invoice_sends s WHERE s."clientInvoiceId" = i.id ORDER BY s."createdAt" DESC LIMIT 1) AS "lastSend",
       (SELECT c.id FROM client_invoices c WHERE c."creditNoteForId" = i.id) AS "creditNoteId"
  FROM client_invoices i WHERE i."tenantId" = $3
 ORDER BY i."createdAt" DESC, i.id DESC LIMIT $1 OFFSET $2`;
const pageLines = {
  name: 'floor-client-invoice-lines',
  text: `SELECT l."clientInvoiceId", l.position, l.description, ${decimal('l.quantity')} AS quantity, l.unit, l."baseQuantity",
         ${decimal('l."unitPrice"')} AS "unitPrice", ${decimal('l."netAmount"')} AS "netAmount", l."taxCategory", ${decimal('l."taxRate"')} AS "taxRate",
         l."taxExemptionReason", l."projectId", l."taskId", l."tenantUserId", l."entryCount"
    FROM client_invoice_lines l WHERE l."clientInvoiceId" = ANY($1::text[]) ORDER BY l."clientInvoiceId", l.position`,
};

const address = (value) => ({ city: value.city, countryCode: value.countryCode, line1: value.line1, line2: value.line2 ?? null, postcode: value.postcode });
const electronicAddress = (value) => (value ? { id: value.id, scheme: value.scheme } : null);

/** An invoice with its lines, as Tally's REST schema prints it (its fields by name). */
function printedInvoice(row, lines) {
  const { currency, seller, buyer } = row;
  return {
    buyer: buyer && {
      address: buyer.address ? address(buyer.address) : null,
      electronicAddress: electronicAddress(buyer.electronicAddress),
      email: buyer.email ?? null,
      name: buyer.name,
      vatId: buyer.vatId ?? null,
    },
    buyerReference: row.buyerReference,
    clientId: row.clientId,
    createdAt: row.createdAt,
    creditNoteForId: row.creditNoteForId,
    creditNoteId: row.creditNoteId,
    currency,
    discount:
      row.discountPercent || row.discountAmount
        ? {
            amount: optionalMoney(row.discountAmount, currency),
            percent: row.discountPercent === null ? null : percent(row.discountPercent),
            reason: row.discountReason,
          }
        : null,
    dueDate: row.dueDate,
    groupBy: row.groupBy,
    id: row.id,
    issueDate: row.issueDate,
    issuedAt: row.issuedAt,
    lastSend: row.lastSend,
    lines: lines.map((line) => ({
      baseQuantity: line.baseQuantity,
      description: line.description,
      entryCount: line.entryCount,
      netAmount: money(line.netAmount, currency),
      position: line.position,
      projectId: line.projectId,
      quantity: line.quantity,
      taskId: line.taskId,
      taxCategory: line.taxCategory,
      taxExemptionReason: line.taxExemptionReason,
      taxRate: percent(line.taxRate),
      tenantUserId: line.tenantUserId,
      unit: line.unit,
      unitPrice: money(line.unitPrice, currency),
    })),
    notes: row.notes,
    number: row.number,
    paidAt: row.paidAt,
    payments: row.payments.map((payment) => ({ amount: money(payment.amount, currency), paidAt: payment.paidAt })),
    periodFrom: row.periodFrom,
    periodTo: row.periodTo,
    seller: seller && {
      address: address(seller.address),
      bankName: seller.bankName ?? null,
      bic: seller.bic ?? null,
      contactName: seller.contactName ?? null,
      electronicAddress: electronicAddress(seller.electronicAddress),
      email: seller.email,
      iban: seller.iban ?? null,
      legalName: seller.legalName,
      phone: seller.phone ?? null,
      smallBusiness: seller.smallBusiness,
      taxNumber: seller.taxNumber ?? null,
      vatId: seller.vatId ?? null,
    },
    sentAt: row.sentAt,
    sentTo: row.sentTo,
    status: row.status,
    tenantId: row.tenantId,
    totals: {
      allowances: money(row.allowances, currency),
      due: money(row.due, currency),
      gross: money(row.gross, currency),
      lineNet: money(row.lineNet, currency),
      paid: money(row.paid, currency),
      tax: money(row.tax, currency),
      taxBasis: money(row.taxBasis, currency),
      taxes: row.taxes.map((group) => ({
        amount: money(group.amount, currency),
        basis: money(group.basis, currency),
        category: group.category,
        exemptionReason: group.exemptionReason ?? null,
        rate: percent(group.rate),
      })),
    },
    type: row.type,
    updatedAt: row.updatedAt,
    voidedAt: row.voidedAt,
  };
}

/** A page of the tenant's client invoices, newest first, with their lines. */
async function clientInvoices(tenantId, limit, offset) {
  const { rows } = await pool.query(invoicePage, [limit, offset, tenantId]);
  if (rows.length === 0) return [];
  const linesOf = new Map(rows.map((row) => [row.id, []]));
  const { rows: lines } = await pool.query({ ...pageLines, values: [[...linesOf.keys()]] });
  for (const line of lines) linesOf.get(line.clientInvoiceId).push(line);
  return rows.map((row) => printedInvoice(row, linesOf.get(row.id)));
}

/** `limit` and `offset` of a list's query, or undefined when either is not what the API takes. */
function pageOf(url) {
  const limit = Number(url.searchParams.get('limit') ?? 50);
  const offset = Number(url.searchParams.get('offset') ?? 0);
  return Number.isInteger(limit) && limit >= 1 && limit <= 200 && Number.isInteger(offset) && offset >= 0 ? { limit, offset } : undefined;
}

async function readBody(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

async function handle(request, response) {
  const url = new URL(request.url, 'http://localhost');
  if (url.pathname === '/health') return send(response, 200, { status: 'ok' });
  const invoices = /^\/tenants\/([^/]+)\/client-invoices$/.exec(url.pathname);
  if (invoices && request.method === 'GET') {
    const [, tenantId] = invoices;
    if (!(await admitted(request, tenantId))) return send(response, 401, { code: 'UNAUTHENTICATED' });
    const page = pageOf(url);
    if (!page) return send(response, 400, { code: 'VALIDATION_FAILED' });
    return send(response, 200, await clientInvoices(tenantId, page.limit, page.offset));
  }
  const match = /^\/tenants\/([^/]+)\/notes(?:\/([^/]+))?$/.exec(url.pathname);
  if (!match) return send(response, 404, { code: 'NOT_FOUND' });
  const [, tenantId, noteId] = match;
  if (!(await admitted(request, tenantId))) return send(response, 401, { code: 'UNAUTHENTICATED' });
  if (request.method === 'GET' && noteId === undefined) {
    const page = pageOf(url);
    if (!page) return send(response, 400, { code: 'VALIDATION_FAILED' });
    const { rows } = await pool.query(`SELECT ${columns} FROM notes WHERE "tenantId" = $1 ORDER BY "createdAt" DESC, id DESC LIMIT $2 OFFSET $3`, [
      tenantId,
      page.limit,
      page.offset,
    ]);
    return send(response, 200, rows);
  }
  if (request.method === 'GET') {
    const { rows } = await pool.query(`SELECT ${columns} FROM notes WHERE id = $1 AND "tenantId" = $2`, [noteId, tenantId]);
    return rows[0] ? send(response, 200, rows[0]) : send(response, 404, { code: 'NOT_FOUND' });
  }
  if (request.method === 'POST' && noteId === undefined) {
    let body;
    try {
      body = JSON.parse(await readBody(request));
    } catch {
      return send(response, 400, { code: 'BAD_REQUEST' });
    }
    const content = body?.content;
    if (typeof content !== 'string' || content.trim() === '' || content.length > 10_000 || Object.keys(body).length !== 1) {
      return send(response, 400, { code: 'VALIDATION_FAILED' });
    }
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query(
        `INSERT INTO notes (id, "tenantId", "tenantUserId", content, "updatedAt") VALUES ($1, $2, NULL, $3, now()) RETURNING ${columns}`,
        [uuidv7(), tenantId, content],
      );
      const note = rows[0];
      await client.query('INSERT INTO events (id, "tenantId", type, "actorType", "actorId", "subjectId", data) VALUES ($1, $2, $3, $4, NULL, $5, $6)', [
        uuidv7(),
        tenantId,
        'note.created',
        'api_key',
        note.id,
        JSON.stringify(note),
      ]);
      await client.query('COMMIT');
      return send(response, 201, note);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
  return send(response, 405, { code: 'METHOD_NOT_ALLOWED' });
}

const server = http.createServer((request, response) => {
  handle(request, response).catch((error) => {
    process.stderr.write(`floor: ${error.stack}\n`);
    if (!response.headersSent) send(response, 500, { code: 'INTERNAL' });
  });
});
server.keepAliveTimeout = 5000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
