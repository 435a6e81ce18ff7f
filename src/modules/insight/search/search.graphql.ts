import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { SearchArgs, searchType, type SearchResult } from './search.service.js';

const SearchResultObject = builder.objectRef<SearchResult>('SearchResult').implement({
  description: 'One match of a search.',
  fields: (t) => ({
    type: t.expose('type', { type: graphqlEnum(searchType) }),
    id: t.exposeID('id', { description: 'The id of the entry, invoice or project' }),
    title: t.exposeString('title'),
    snippet: t.exposeString('snippet', { description: 'The matching passage as HTML: the text escaped, each match in <mark></mark>' }),
    rank: t.exposeFloat('rank', { description: 'Relevance; higher first' }),
  }),
});

const search = tenantOperation(SearchArgs, ['read', 'Search']);

builder.queryFields((t) => ({
  search: t.field({
    type: [SearchResultObject],
    description: 'Full-text search over entries, invoices and projects the caller may read, most relevant first.',
    ...search.field(t),
    resolve: search.resolve((input, access, { services }) => services.search.search(access, input)),
  }),
}));
