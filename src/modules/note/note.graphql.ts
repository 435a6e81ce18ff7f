import { builder } from '../../graphql/builder.js';
import { tenantOperation } from '../../graphql/operations.js';
import {
  CreateNoteArgs,
  ListNotesArgs,
  NoteArgs,
  NotesConnectionArgs,
  UpdateNoteArgs,
  type NotePageQuery,
  type NoteQuery,
} from './note.service.js';

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

const listNotes = tenantOperation(ListNotesArgs, ['read', 'Note']);
const readNote = tenantOperation(NoteArgs, ['read', 'Note']);
const pageNotes = tenantOperation(NotesConnectionArgs, ['read', 'Note']);
const createNote = tenantOperation(CreateNoteArgs, ['create', 'Note']);
const updateNote = tenantOperation(UpdateNoteArgs, ['update', 'Note']);
const deleteNote = tenantOperation(NoteArgs, ['delete', 'Note']);

builder.queryFields((t) => ({
  notes: t.prismaField({
    type: ['Note'],
    description: "The tenant's notes, newest first.",
    ...listNotes.field(t),
    resolve: listNotes.resolveQuery((input, access, query: NoteQuery, { services }) => services.notes.list(access, input, query)),
  }),
  note: t.prismaField({
    type: 'Note',
    description: 'One note.',
    ...readNote.field(t),
    resolve: readNote.resolveQuery((input, access, query: NoteQuery, { services }) => services.notes.get(access, input.id, query)),
  }),
  notesConnection: t.prismaConnection(
    {
      type: 'Note',
      cursor: 'id',
      description: "The tenant's notes, newest first, as a Relay connection.",
      ...pageNotes.field(t),
      resolve: pageNotes.resolveQuery((_input, access, query: NotePageQuery, { services }) => services.notes.page(access, query)),
    },
    { name: 'NoteConnection' },
    { name: 'NoteEdge' },
  ),
}));

builder.mutationFields((t) => ({
  createNote: t.prismaField({
    type: 'Note',
    description: 'Writes a note as the caller.',
    ...createNote.field(t),
    resolve: createNote.resolveQuery((input, access, query: NoteQuery, { services }) => services.notes.create(access, input.input, query)),
  }),
  updateNote: t.prismaField({
    type: 'Note',
    description: 'Changes a note; members and managers may change only their own.',
    ...updateNote.field(t),
    resolve: updateNote.resolveQuery((input, access, query: NoteQuery, { services }) =>
      services.notes.update(access, input.id, input.input, query),
    ),
  }),
  deleteNote: t.prismaField({
    type: 'Note',
    description: 'Deletes a note; members and managers may delete only their own. GraphQL returns the deleted note.',
    ...deleteNote.field(t),
    resolve: deleteNote.resolveQuery((input, access, query: NoteQuery, { services }) => services.notes.remove(access, input.id, query)),
  }),
}));
