import { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Sql } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import { newestFirst, tenantPage } from '../../../db/list.js';
import { shapesResult, type PrismaPageQuery, type PrismaQuery } from '../../../db/query.js';
import { recordEvent } from '../../../events/outbox.js';
import type { Note, Prisma } from '../../../generated/prisma/client.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { notFound } from '../../../lib/errors.js';

export const noteContentMaxLength = 10_000;

const content = z
  .string()
  .min(1)
  .max(noteContentMaxLength)
  .refine((value) => value.length === 0 || value.trim().length > 0, 'must not be blank')
  .describe(`The note text, 1 to ${noteContentMaxLength} characters`);

export const CreateNoteDto = dto('CreateNoteDto', 'A new note.', { content });
export const UpdateNoteDto = dto('UpdateNoteDto', 'Changes to a note.', { content });

const tenantId = fields.id('Tenant id');
const noteId = fields.id('Note id');
export const ListNotesArgs = args({ tenantId, ...pagination });
export const NoteArgs = args({ tenantId, id: noteId });
export const NotesConnectionArgs = args({ tenantId });
export const CreateNoteArgs = args({ tenantId, input: CreateNoteDto });
export const UpdateNoteArgs = args({ tenantId, id: noteId, input: UpdateNoteDto });

export type NoteQuery = PrismaQuery<Prisma.NoteInclude, Prisma.NoteSelect>;
export type NotePageQuery = PrismaPageQuery<Prisma.NoteInclude, Prisma.NoteWhereUniqueInput>;

/** A note's columns, as the plain reads select them: the whole `Note` row. */
const noteColumns = 'id, "tenantId", "tenantUserId", content, "createdAt", "updatedAt"';

/**
 * Notes: everyone in a tenant reads and writes them; members and managers may
 * change or delete only the notes they wrote.
 *
 * A read that wants the plain row (REST, and GraphQL selections without the
 * author) is one statement through `sql`: Prisma's fixed cost per statement
 * and per row (its result mapping turns each timestamp from text into a
 * tagged value into a Date) was most of what a REST read cost beyond the
 * hand-written floor (figures: docs/performance.md). Reads that include relations stay with Prisma, which
 * loads them in the same round trip.
 */
export function createNoteService({ db, sql, reads }: { db: Db; sql: Sql; reads: Reads }) {
  async function findOwn(tx: Prisma.TransactionClient, access: TenantAccess, id: string, action: 'update' | 'delete'): Promise<Note> {
    const note = await tx.note.findFirst({ where: { id, ...access.scope('read', 'Note') } });
    if (!note) throw notFound('Note', id);
    access.assertMayChange(action, 'Note', note);
    return note;
  }

  /** One note as its plain row, through `sql` (see above). */
  async function plainNote(access: TenantAccess, id: string): Promise<Note | undefined> {
    const values: unknown[] = [id];
    const readable = access.sqlScope('read', 'Note', 'n', (value) => `$${values.push(value)}`);
    const [note] = await sql.query<Note>(`SELECT ${noteColumns} FROM notes n WHERE n.id = $1 AND ${readable}`, values);
    return note;
  }

  return {
    /** The tenant's notes, newest first. */
    async list(access: TenantAccess, page: z.output<typeof ListNotesArgs>, query: NoteQuery = {}): Promise<Note[]> {
      if (shapesResult(query)) return reads.run(access, ({ db }) => db.note.findMany({ ...query, ...tenantPage(access.scope('read', 'Note'), page) }));
      // Bound by hand, not through `Parameters`: its map cost more than the rest of building this statement.
      const values: unknown[] = [page.limit, page.offset];
      const readable = access.sqlScope('read', 'Note', 'n', (value) => `$${values.push(value)}`);
      // The order of `newestFirst`, on the tenant's (tenantId, createdAt, id) index.
      const text = `SELECT ${noteColumns} FROM notes n WHERE ${readable} ORDER BY n."createdAt" DESC, n.id DESC LIMIT $1 OFFSET $2`;
      return reads.run(access, ({ sql }) => sql.query<Note>(text, values));
    },

    /**
     * A page of the tenant's notes for a Relay connection (`query` carries cursor, take and skip).
     * Notes take no filter; the slot keeps the shape every connection's `page` has.
     */
    async page(access: TenantAccess, _filter: undefined, query: NotePageQuery): Promise<Note[]> {
      return db.note.findMany({ ...query, where: access.scope('read', 'Note'), orderBy: newestFirst });
    },

    /** One note of the tenant; 404 when it belongs to another tenant. */
    async get(access: TenantAccess, id: string, query: NoteQuery = {}): Promise<Note> {
      const note = shapesResult(query) ? await db.note.findFirst({ ...query, where: { id, ...access.scope('read', 'Note') } }) : await plainNote(access, id);
      if (!note) throw notFound('Note', id);
      return note;
    },

    /**
     * Creates a note authored by the caller and records `note.created`. When
     * the caller wants the plain row (REST, GraphQL without the author), the
     * note and its event are two statements in one `sql` transaction: through
     * Prisma's interactive transaction the same write took twice the CPU.
     */
    async create(access: TenantAccess, data: z.output<typeof CreateNoteDto>, query: NoteQuery = {}): Promise<Note> {
      access.assert('create', 'Note');
      const values = access.stamp({ tenantUserId: access.tenantUserId, content: data.content });
      if (!shapesResult(query)) {
        return sql.transaction(async (client) => {
          // The id a UUIDv7, as Prisma's default makes it.
          const [note] = await client.query<Note>(
            `INSERT INTO notes (id, "tenantId", "tenantUserId", content, "createdAt", "updatedAt")
             VALUES (uuidv7()::text, $1, $2, $3, now(), now()) RETURNING ${noteColumns}`,
            [values.tenantId, values.tenantUserId, values.content],
          );
          const created = note as Note;
          await recordEvent(client, access, { type: 'note.created', subjectId: created.id, data: created });
          return created;
        });
      }
      return db.$transaction(async (tx) => {
        const note = await tx.note.create({ data: values });
        await recordEvent(tx, access, { type: 'note.created', subjectId: note.id, data: note });
        return tx.note.findUniqueOrThrow({ ...query, where: { id: note.id } });
      });
    },

    /** Changes a note and records `note.updated`. */
    async update(access: TenantAccess, id: string, data: z.output<typeof UpdateNoteDto>, query: NoteQuery = {}): Promise<Note> {
      return db.$transaction(async (tx) => {
        await findOwn(tx, access, id, 'update');
        const note = await tx.note.update({ where: { id }, data });
        await recordEvent(tx, access, { type: 'note.updated', subjectId: id, data: note });
        return shapesResult(query) ? tx.note.findUniqueOrThrow({ ...query, where: { id } }) : note;
      });
    },

    /** Deletes a note and records `note.deleted`; returns what was deleted. */
    async remove(access: TenantAccess, id: string, query: NoteQuery = {}): Promise<Note> {
      return db.$transaction(async (tx) => {
        const existing = await findOwn(tx, access, id, 'delete');
        const deleted = await tx.note.delete({ ...query, where: { id } });
        await recordEvent(tx, access, { type: 'note.deleted', subjectId: id, data: existing });
        return deleted;
      });
    },
  };
}

export type NoteService = ReturnType<typeof createNoteService>;
