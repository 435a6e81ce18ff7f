import { builder } from '../../graphql/builder.js';
import { tenantOperation } from '../../graphql/inputs.js';
import { args, fields } from '../../lib/dto.js';
import { CreateNoteDto, ListNotesArgs, UpdateNoteDto } from './note.service.js';

builder.prismaObject('Note', {
  description: 'A short text shared within a tenant.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    tenantUserId: t.exposeID('tenantUserId', {
      nullable: true,
      description: 'The author (tenantUserId); null when the note was written with an API key.',
    }),
    content: t.exposeString('content'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const tenantId = fields.id('Tenant id');
const noteId = fields.id('Note id');
const NoteArgs = args({ tenantId, id: noteId });
const NotesConnectionArgs = args({ tenantId });
const CreateNoteArgs = args({ tenantId, input: CreateNoteDto });
const UpdateNoteArgs = args({ tenantId, id: noteId, input: UpdateNoteDto });

builder.queryFields((t) => ({
  notes: t.prismaField({
    type: ['Note'],
    description: "The tenant's notes, newest first.",
    ...tenantOperation(t, ListNotesArgs, ['read', 'Note']),
    resolve: async (query, _root, input, context) =>
      context.services.notes.list(await context.tenantAccess(input.tenantId), input, query),
  }),
  note: t.prismaField({
    type: 'Note',
    description: 'One note.',
    ...tenantOperation(t, NoteArgs, ['read', 'Note']),
    resolve: async (query, _root, input, context) =>
      context.services.notes.get(await context.tenantAccess(input.tenantId), input.id, query),
  }),
  notesConnection: t.prismaConnection({
    type: 'Note',
    cursor: 'id',
    description: "The tenant's notes, newest first, as a Relay connection.",
    ...tenantOperation(t, NotesConnectionArgs, ['read', 'Note']),
    resolve: async (query, _root, input, context) =>
      context.services.notes.page(await context.tenantAccess(input.tenantId), query),
  }, { name: 'NoteConnection' }, { name: 'NoteEdge' }),
}));

builder.mutationFields((t) => ({
  createNote: t.prismaField({
    type: 'Note',
    description: 'Writes a note as the caller.',
    ...tenantOperation(t, CreateNoteArgs, ['create', 'Note']),
    resolve: async (query, _root, input, context) =>
      context.services.notes.create(await context.tenantAccess(input.tenantId), input.input, query),
  }),
  updateNote: t.prismaField({
    type: 'Note',
    description: 'Changes a note; members and managers may change only their own.',
    ...tenantOperation(t, UpdateNoteArgs, ['update', 'Note']),
    resolve: async (query, _root, input, context) =>
      context.services.notes.update(await context.tenantAccess(input.tenantId), input.id, input.input, query),
  }),
  deleteNote: t.prismaField({
    type: 'Note',
    description: 'Deletes a note; members and managers may delete only their own. GraphQL returns the deleted note.',
    ...tenantOperation(t, NoteArgs, ['delete', 'Note']),
    resolve: async (query, _root, input, context) =>
      context.services.notes.remove(await context.tenantAccess(input.tenantId), input.id, query),
  }),
}));
