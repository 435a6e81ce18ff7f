import { crud } from '../../../rest/route.js';
import { defineModule } from '../../module.js';
import { createNoteService, type NoteService } from './note.service.js';
import './note.graphql.js';

/** Notes: short texts shared within a tenant (spec: list and create; we serve the whole resource). */
export const noteModule = defineModule({
  name: 'notes',
  createService: createNoteService,
  tag: { name: 'Notes', description: 'Short notes shared within a tenant' },
  routes: crud(
    'note',
    '/tenants/{tenantId}/notes',
    'noteId',
    { one: 'note', many: 'notes' },
    {
      list: 'Query.notes',
      create: 'Mutation.createNote',
      get: 'Query.note',
      update: { field: 'Mutation.updateNote', summary: 'Change a note (members and managers: their own only)' },
      remove: { field: 'Mutation.deleteNote', summary: 'Delete a note (members and managers: their own only)' },
    },
  ),
});

declare module '../../services.js' {
  interface Services {
    notes: NoteService;
  }
}
