import { z } from 'zod';
import { fields } from '../../../lib/dto.js';
import { validationFailed } from '../../../lib/errors.js';
import { crud, nativeRoute } from '../../../rest/route.js';
import { defineModule, job, type JobContext } from '../../module.js';
import { abandonedImportQueue, importRunQueue } from './import.jobs.js';
import { createImportService, UploadImportFields, type ImportService, type IncomingImportFile } from './import.service.js';
import { createImportWork, type ImportWork } from './import.work.js';
import './import.graphql.js';

const imports = '/tenants/{tenantId}/imports';

/** Imports of Toggl, Clockify, Harvest, Kimai and mapped CSV files: uploaded here, worked through by a job. */
export const importModule = defineModule({
  name: 'imports',
  createService: createImportService,
  tag: { name: 'Imports', description: 'Moving in: time entries from Toggl, Clockify, Harvest, Kimai and other CSV files' },
  routes: [
    ...crud(
      'import',
      imports,
      'importId',
      { one: 'import', many: 'imports' },
      {
        list: { field: 'Query.imports', summary: 'List imports, newest first (owners and admins)' },
        get: { field: 'Query.import', summary: 'One import, with its progress (`status`, `counts`, `errors`)' },
      },
    ),
    nativeRoute({
      controller: 'import',
      action: 'create',
      method: 'POST',
      path: imports,
      summary: 'Import a CSV file of another time tracker; the rows are imported in the background',
      description:
        'Multipart: the CSV as `file` (at most 20 MiB; 413 beyond), `source` (toggl: the detailed report CSV; clockify: the detailed report CSV; ' +
        'harvest: the time report CSV; kimai: the timesheet CSV export; generic: any CSV with `mapping`), optional `dryRun`, `timezone` ' +
        "(of the file's local times; default the tenant's) and `entryStatus` (approved, the default, or draft). The answer is 202 with the " +
        'import queued; `GET .../imports/{importId}` shows its counts as it goes. People are matched by email (by name where the file has ' +
        'none) and invited when unknown; clients, projects and tasks by name, created when missing. Every row keeps a fingerprint: the same ' +
        'file imported again imports nothing. A file that is not a CSV is 415; a header without the columns its source needs, or a mapping ' +
        'naming a column the file lacks, is 400 naming `file` or `mapping`.',
      access: ['create', 'Import'],
      parameters: z.strictObject({ tenantId: fields.id('Tenant id') }),
      body: {
        kind: 'multipart',
        fileField: 'file',
        fileDescription: 'The CSV file, UTF-8 (a BOM is fine), at most 20 MiB',
        fields: UploadImportFields,
        stage: async (file, { services }): Promise<IncomingImportFile> => ({ staged: await services.imports.stage(file.stream), fileName: file.fileName }),
        discard: (file) => file.staged.discard(),
      },
      responses: { '202': { description: 'The import, queued', graphqlType: 'Import' } },
      async handler({ upload, access, context, respond }) {
        if (!upload?.file) throw validationFailed([{ path: 'file', message: 'is required: send the CSV as the multipart field "file"' }]);
        // The router parsed the fields with UploadImportFields (dryRun is a boolean by now).
        const started = await context.services.imports.start(access, upload.file, upload.fields as unknown as z.output<typeof UploadImportFields>);
        return respond('Import', started, 202);
      },
    }),
  ],
  createWork: createImportWork,
  jobs: [
    job(importRunQueue, ({ importId }, { work, log }: JobContext<ImportWork>) => work.run(importId, log)),
    job(abandonedImportQueue, ({ importId }, { work, log }: JobContext<ImportWork>) => work.abandon(importId, log)),
  ],
});

declare module '../../services.js' {
  interface Services {
    imports: ImportService;
  }
}
