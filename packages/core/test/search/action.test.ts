import { describe, expect, it } from 'vitest';
import { buildToolIndex, rankingWeights } from '../../src/search/tool-index.js';
import { forum, forumTool, readOnly } from './forum.js';

describe('the action a request asks for', () => {
  // Only the badges have phrases: they teach how people ask for a list and for one, whatever the object.
  const forumOfTopics = forum(
    [
      forumTool('ListForumBadges', 'Lists the badges.', readOnly),
      forumTool('GetForumBadge', 'Returns a badge.', readOnly),
      forumTool('ListForumTopics', 'Lists the topics.', readOnly),
      // Its description names the topic twice: on the words alone it fits a request about topics a little better.
      forumTool('GetForumTopic', 'Returns a topic, the topic with the id given.', readOnly),
    ],
    {
      ListForumBadges: ['every badge there is', 'all the badges we have', 'everything in the badge catalogue'],
      GetForumBadge: ['the details of one badge', 'a single badge by its number', 'look up badge 4'],
    },
  );
  const first = (request: string, weights = rankingWeights) => buildToolIndex(forumOfTopics.tools, weights).search(request)[0]!.tool.name;

  it('is learned from the phrases of tools of any object', () => {
    expect(first('every topic there is')).toBe('ListForumTopics');
    expect(first('every topic there is', { ...rankingWeights, action: 0 })).toBe('GetForumTopic');
    expect(first('the details of one topic')).toBe('GetForumTopic');
  });
});
