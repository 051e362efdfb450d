import { describe, expect, it } from 'vitest';
import { defineToolkit, type ToolData } from '../../src/index.js';
import { buildToolIndex, rankingWeights, serviceNames } from '../../src/search/tool-index.js';
import { forumTool, readOnly } from './forum.js';

const toolkit = (name: string, description: string, tools: ToolData[]) =>
  defineToolkit({ name, version: '1.0.0', description, baseUrl: 'http://127.0.0.1:9', tools, phrases: () => ({}) });

describe('a service named in a request', () => {
  const boards = toolkit('BoardsApi', 'Project boards, their cards and what people track on them.', [
    forumTool('ListBoardCards', 'Lists the cards on a project board, a deck of them per column.', readOnly),
    forumTool('TrackBoardTime', 'Keeps track of the time spent on a board card.'),
  ]);
  const files = toolkit('FilesApi', 'Dropbox files through its Track API. Search them.', [
    forumTool('SearchFiles', 'Searches files and folders in Dropbox by name, through the Track API.', readOnly),
  ]);
  const tools = [...boards.tools, ...files.tools];
  const first = (request: string, weights = rankingWeights) => buildToolIndex(tools, weights).search(request)[0]!.tool.name;

  it("asks that service's toolkit, as the catalog names it (a capitalised word of its description that its tools name)", () => {
    expect(first('find the board cards in Dropbox')).toBe('SearchFiles');
    expect(first('find the board cards in dropbox')).toBe('SearchFiles');
    expect(first('find the board cards in Dropbox', { ...rankingWeights, otherService: 1 })).toBe('ListBoardCards');
  });

  it('is no word that a tool writes in lower case, nor one capitalised for opening a sentence', () => {
    // "Track" is capitalised in the files toolkit's description and its tool's, but a tool of the boards writes "track";
    // "Search" opens a sentence there; "Project" opens the boards' description and is named by no tool.
    expect(serviceNames(tools, [[], [], []])).toEqual(new Map([['dropbox', 'FilesApi']]));
  });

  it('may be a name with a dot, as written', () => {
    const people = toolkit('PeopleApi', 'People of a Customer.io workspace.', [forumTool('AddPerson', 'Adds a person to Customer.io.')]);
    expect(serviceNames([...tools, ...people.tools], [[], [], [], []]).get('customer.io')).toBe('PeopleApi');
    const top = (weights = rankingWeights) => buildToolIndex([...tools, ...people.tools], weights).search('search files for jo, on customer.io')[0]!.tool.name;
    expect(top()).toBe('AddPerson');
    expect(top({ ...rankingWeights, otherService: 1 })).toBe('SearchFiles');
  });
});
