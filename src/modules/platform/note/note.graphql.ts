import { builder } from '../../../graphql/builder.js';
import { resourceFields } from '../../../graphql/resource-fields.js';
import { CreateNoteArgs, ListNotesArgs, NoteArgs, NotesConnectionArgs, UpdateNoteArgs } from './note.service.js';

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

resourceFields('Note', {
  subject: 'Note',
  service: (services) => services.notes,
  queries: {
    notes: { list: ListNotesArgs, description: "The tenant's notes, newest first." },
    note: { get: NoteArgs, description: 'One note.' },
    notesConnection: { connection: NotesConnectionArgs, description: "The tenant's notes, newest first, as a Relay connection." },
  },
  mutations: {
    createNote: { create: CreateNoteArgs, description: 'Writes a note as the caller.' },
    updateNote: { update: UpdateNoteArgs, description: 'Changes a note; members and managers may change only their own.' },
    deleteNote: {
      remove: NoteArgs,
      description: 'Deletes a note; members and managers may delete only their own. GraphQL returns the deleted note.',
    },
  },
});
