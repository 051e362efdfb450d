// The forum the search tests build their toolkits from: a few tools, each a name, a description and what it does.
import { defineToolkit, type Annotations, type ToolData } from '../../src/index.js';

export const destructive: Partial<Annotations> = { destructiveHint: true, readOnlyHint: false };
export const readOnly: Partial<Annotations> = { readOnlyHint: true };

/** A tool of the forum, with its annotations where they say more than its method would. */
export const forumTool = (name: string, description: string, annotations?: Partial<Annotations>): ToolData => ({
  name,
  description,
  parameters: [],
  output: { description: '' },
  requirements: {},
  ...(annotations && { annotations }),
});

/** The forum with these tools, and the search phrases given for them. */
export const forum = (tools: ToolData[], phrases: Record<string, string[]> = {}) =>
  defineToolkit({ name: 'ForumApi', version: '1.0.0', description: 'A forum.', baseUrl: 'http://127.0.0.1:9', tools, phrases: () => phrases });
